package io.busload.dashboard.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.testsupport.SettableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.authentication.WebAuthenticationDetails;

/**
 * Attacker test of the dashboard's login: repeated wrong passwords against the real password check (bcrypt, the users
 * file's manager) are refused for a while per user and per client address, the right password included, with a
 * message saying how long; the user's count clears on success, and the refusal ends when the window passes.
 */
class LoginThrottleTest {
  private static final String PASSWORD = "right-horse-battery";
  private final PasswordEncoder encoder = PasswordEncoderFactories.createDelegatingPasswordEncoder();
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-27T12:00:00Z"));
  private final LoginThrottle throttle;

  LoginThrottleTest() {
    InMemoryUserDetailsManager users = new InMemoryUserDetailsManager();
    for (String name : new String[] {"admin", "operator"}) {
      users.createUser(User.withUsername(name).password(encoder.encode(PASSWORD)).roles("OPERATOR").build());
    }
    DaoAuthenticationProvider passwords = new DaoAuthenticationProvider(users);
    passwords.setPasswordEncoder(encoder);
    throttle = new LoginThrottle(passwords, clock);
  }

  private Authentication login(String user, String password, String address) {
    UsernamePasswordAuthenticationToken login = UsernamePasswordAuthenticationToken.unauthenticated(user, password);
    MockHttpServletRequest request = new MockHttpServletRequest("POST", "/login");
    request.setRemoteAddr(address);
    login.setDetails(new WebAuthenticationDetails(request));
    return throttle.authenticate(login);
  }

  @Test
  void wrongPasswords_fivePerUser_thenRefusedEvenWithRightPassword_untilWindowPasses() {
    for (int i = 0; i < LoginThrottle.PER_USER; i++) {
      String from = "10.0.0." + (i + 1); // a new address each time: the per-user limit alone must hold
      assertThatThrownBy(() -> login("admin", "guess", from)).isExactlyInstanceOf(BadCredentialsException.class);
    }

    assertThatThrownBy(() -> login("admin", PASSWORD, "10.0.0.99"))
        .as("the right password, after five wrong ones").isInstanceOf(LoginThrottle.Throttled.class)
        .hasMessageContaining("Too many failed logins").hasMessageContaining("15 minutes");
    assertThat(login("operator", PASSWORD, "10.0.0.99").isAuthenticated()).as("another user is not held up").isTrue();

    clock.advance(LoginThrottle.WINDOW.minusMinutes(1));
    assertThatThrownBy(() -> login("admin", PASSWORD, "10.0.0.99")).isInstanceOf(LoginThrottle.Throttled.class)
        .hasMessageContaining("1 minute.");
    clock.advance(Duration.ofMinutes(1));
    assertThat(login("admin", PASSWORD, "10.0.0.99").isAuthenticated()).as("after the window").isTrue();
  }

  @Test
  void wrongPasswords_manyUsersFromOneAddress_addressRefused_otherAddressesNot() {
    for (int i = 0; i < LoginThrottle.PER_ADDRESS; i++) {
      String user = "user" + i; // names that do not exist count too, and never reach the per-user limit
      assertThatThrownBy(() -> login(user, "guess", "192.0.2.7")).isExactlyInstanceOf(BadCredentialsException.class);
    }

    assertThatThrownBy(() -> login("operator", PASSWORD, "192.0.2.7")).isInstanceOf(LoginThrottle.Throttled.class);
    assertThat(login("operator", PASSWORD, "192.0.2.8").isAuthenticated()).isTrue();
  }

  @Test
  void success_clearsTheUsersCount() {
    for (int i = 0; i < LoginThrottle.PER_USER - 1; i++) {
      assertThatThrownBy(() -> login("admin", "typo", "10.1.1.1")).isExactlyInstanceOf(BadCredentialsException.class);
    }
    assertThat(login("admin", PASSWORD, "10.1.1.1").isAuthenticated()).isTrue();

    assertThatThrownBy(() -> login("admin", "typo", "10.1.1.1")).as("counting starts again")
        .isExactlyInstanceOf(BadCredentialsException.class);
    assertThat(login("admin", PASSWORD, "10.1.1.1").isAuthenticated()).isTrue();
  }
}
