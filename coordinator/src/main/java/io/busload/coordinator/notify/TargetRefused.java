package io.busload.coordinator.notify;

/** A target description refused before anything was stored, naming the field at fault (never its value). */
public final class TargetRefused extends RuntimeException {
  private final String field;

  public TargetRefused(String field, String detail) {
    super(detail);
    this.field = field;
  }

  public String field() {
    return field;
  }
}
