package io.busload.dashboard;

import java.security.SecureRandom;
import java.util.Collections;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.MethodOrdererContext;

/**
 * A random order of a class's tests, different on every run, with the seed printed so that a failing order can be
 * replayed: {@code -Djunit.jupiter.execution.order.random.seed=SEED} gives the same order here and to JUnit's own
 * {@link MethodOrderer.Random} (both shuffle with a {@link java.util.Random} of that seed). JUnit's orderer logs its
 * seed only at java.util.logging's CONFIG level, which a build does not show. Used where tests must not depend on
 * each other's order, so that every build checks it again.
 */
public final class SeededRandomOrder implements MethodOrderer {
  static final String SEED = MethodOrderer.Random.RANDOM_SEED_PROPERTY_NAME;

  @Override
  public void orderMethods(MethodOrdererContext context) {
    long seed = context.getConfigurationParameter(SEED).map(SeededRandomOrder::seed)
        .orElseGet(() -> new SecureRandom().nextLong());
    Collections.shuffle(context.getMethodDescriptors(), new java.util.Random(seed));
    System.out.println(context.getTestClass().getSimpleName() + ": test order from seed " + seed + " (replay: -D"
        + SEED + "=" + seed + "): " + String.join(", ", context.getMethodDescriptors().stream()
            .map(m -> m.getMethod().getName()).toList()));
  }

  private static long seed(String value) {
    try {
      return Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(SEED + " must be a whole number (a long), not '" + value + "'", e);
    }
  }
}
