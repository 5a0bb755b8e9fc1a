package io.busload.dashboard.security;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.authentication.WebAuthenticationDetails;

/**
 * Slows password guessing at the dashboard's login: at most {@link #PER_USER} failed logins per user name and
 * {@link #PER_ADDRESS} per client address in {@link #WINDOW}. Past either, a login is refused before its password is
 * checked (so a refusal says nothing about the password) until the oldest failure of the window ages out; the refusal
 * says how long that is. A success clears the user's count, not the address's, so one good password does not reopen
 * guessing at other users from the same host. Counts are in memory: a restart clears them, as it does the sessions.
 */
public final class LoginThrottle implements AuthenticationProvider {
  static final int PER_USER = 5;
  static final int PER_ADDRESS = 20;
  static final Duration WINDOW = Duration.ofMinutes(15);
  /** Keys (user names, addresses) held at most; guessing at random names cannot grow memory past this. */
  static final int MAX_KEYS = 100_000;

  /** A login refused for too many failures: the message is what the login page shows. */
  public static final class Throttled extends AuthenticationException {
    private final Duration retryAfter;

    Throttled(String message, Duration retryAfter) {
      super(message);
      this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
      return retryAfter;
    }
  }

  private final AuthenticationProvider delegate;
  private final Clock clock;
  private final Map<String, Deque<Instant>> failures = new HashMap<>();

  public LoginThrottle(AuthenticationProvider delegate, Clock clock) {
    this.delegate = delegate;
    this.clock = clock;
  }

  @Override
  public Authentication authenticate(Authentication login) throws AuthenticationException {
    String user = "user:" + login.getName();
    String address = "address:" + address(login).orElse("unknown");
    Instant now = clock.instant();
    synchronized (failures) {
      Optional<Duration> wait = blocked(user, PER_USER, now).or(() -> blocked(address, PER_ADDRESS, now));
      if (wait.isPresent()) {
        long minutes = Math.max(1, (wait.get().toSeconds() + 59) / 60);
        throw new Throttled("Too many failed logins for this user or from this address. Try again in " + minutes
            + " minute" + (minutes == 1 ? "" : "s") + ".", wait.get());
      }
    }
    try {
      Authentication done = delegate.authenticate(login);
      synchronized (failures) {
        failures.remove(user);
      }
      return done;
    } catch (BadCredentialsException e) {
      synchronized (failures) {
        failed(user, now);
        failed(address, now);
      }
      throw e;
    }
  }

  @Override
  public boolean supports(Class<?> authentication) {
    return delegate.supports(authentication);
  }

  private static Optional<String> address(Authentication login) {
    return login.getDetails() instanceof WebAuthenticationDetails web ? Optional.ofNullable(web.getRemoteAddress())
        : Optional.empty();
  }

  /** How long {@code key} stays refused, if it has {@code limit} failures within the window before {@code now}. */
  private Optional<Duration> blocked(String key, int limit, Instant now) {
    Deque<Instant> seen = failures.get(key);
    if (seen == null) {
      return Optional.empty();
    }
    prune(seen, now);
    if (seen.isEmpty()) {
      failures.remove(key);
      return Optional.empty();
    }
    return seen.size() < limit ? Optional.empty() : Optional.of(Duration.between(now, seen.peekFirst().plus(WINDOW)));
  }

  private void failed(String key, Instant now) {
    if (failures.size() >= MAX_KEYS) {
      failures.values().forEach(seen -> prune(seen, now));
      failures.values().removeIf(Deque::isEmpty);
      if (failures.size() >= MAX_KEYS) {
        failures.clear(); // a flood of names: forgetting beats running out of memory; the window starts again
      }
    }
    Deque<Instant> seen = failures.computeIfAbsent(key, k -> new ArrayDeque<>());
    seen.addLast(now);
    // Only the newest failures up to the larger limit matter to any decision.
    while (seen.size() > PER_ADDRESS) {
      seen.removeFirst();
    }
  }

  private static void prune(Deque<Instant> seen, Instant now) {
    while (!seen.isEmpty() && !seen.peekFirst().plus(WINDOW).isAfter(now)) {
      seen.removeFirst();
    }
  }
}
