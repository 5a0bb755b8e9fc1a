package io.busload.coordinator.api;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What an API token may do. {@link #READ} reads, {@link #PUSH} pushes result files, {@link #SWEEP} operates the
 * fleet (sweeps, schedules, accepted changes), {@link #ADMIN} manages tokens, sees who pushed from where, and may do
 * all of the others. {@link ApiAuth#required} maps every route to one scope.
 */
public enum Scope {
  READ, PUSH, SWEEP, ADMIN;

  /** The name as tokens, the store and the REST API spell it: {@code read}, {@code push}, ... */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether a token holding {@code held} has this scope: it holds it, or it holds admin. */
  public boolean grantedBy(Set<Scope> held) {
    return held.contains(this) || held.contains(ADMIN);
  }

  /** The scope named {@code key}, or a {@link BadInput} on {@code field} naming the four there are. */
  static Scope parse(String field, String key) {
    for (Scope scope : values()) {
      if (scope.key().equals(key)) {
        return scope;
      }
    }
    throw new BadInput(field, "unknown scope '" + key + "'; one of " + Arrays.stream(values()).map(Scope::key)
        .collect(Collectors.joining(", ")));
  }
}
