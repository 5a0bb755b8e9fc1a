package io.busload.coordinator.analysis;

/**
 * An id that names nothing the store holds (a sweep or device without results, a device never seen), so there is
 * nothing to analyse. {@link #role()} is the input that named it, such as {@code baseline} or {@code device}, for
 * the caller to name in its refusal.
 */
public final class UnknownId extends RuntimeException {
  private final String role;

  public UnknownId(String role, String detail) {
    super(detail, null, false, false);
    this.role = role;
  }

  public String role() {
    return role;
  }
}
