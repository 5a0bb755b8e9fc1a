package io.busload.dashboard.coordinator;

/** The coordinator could not be asked, or refused; the message says which, in words a view can show. */
public class CoordinatorException extends RuntimeException {
  public CoordinatorException(String message, Throwable cause) {
    super(message, cause);
  }

  public CoordinatorException(String message) {
    super(message);
  }
}
