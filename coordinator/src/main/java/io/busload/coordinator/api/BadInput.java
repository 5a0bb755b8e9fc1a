package io.busload.coordinator.api;

/** Input refused before anything was stored; becomes a 400 problem naming {@link #field()}. */
public final class BadInput extends RuntimeException {
  private final String field;

  public BadInput(String field, String detail) {
    super(detail, null, false, false);
    this.field = field;
  }

  public String field() {
    return field;
  }
}
