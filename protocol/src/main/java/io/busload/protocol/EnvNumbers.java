package io.busload.protocol;

import java.util.Map;

/**
 * Whole numbers read from environment settings. Every member reads its ports, caps and pool sizes this one way, so
 * an unset or blank setting always means the default and a wrong one is always refused naming the setting.
 */
public final class EnvNumbers {
  private EnvNumbers() {}

  /**
   * The whole number {@code name} holds in {@code env}, or {@code fallback} when it is unset or blank.
   *
   * @param what what the setting must be, for the refusal ("a whole number", "a port number")
   * @throws IllegalArgumentException naming {@code name} and its value when that is not a whole number
   */
  public static int wholeNumber(Map<String, String> env, String name, int fallback, String what) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(value.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": not " + what + ": '" + value.strip() + "'");
    }
  }
}
