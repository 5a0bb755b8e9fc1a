package io.busload.coordinator.store;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** A kernel's parameters as one short text, {@code elements=1024;stride=4}, sorted by name so equal sets compare equal. */
public final class Params {
  private Params() {}

  public static String text(Map<String, Object> params) {
    return new TreeMap<>(params).entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(";"));
  }
}
