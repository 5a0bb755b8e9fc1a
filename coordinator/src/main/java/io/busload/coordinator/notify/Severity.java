package io.busload.coordinator.notify;

/** How much a notice matters, in order; a target hears its filter's least severity and above. */
public enum Severity {
  INFO, WARNING, CRITICAL
}
