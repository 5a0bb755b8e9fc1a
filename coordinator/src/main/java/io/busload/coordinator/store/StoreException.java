package io.busload.coordinator.store;

import java.sql.SQLException;

/** A failed database call, unchecked so it can cross {@code executeBlocking}; the SQL state stays in the cause. */
public final class StoreException extends RuntimeException {
  StoreException(SQLException cause) {
    super("store: " + cause.getMessage(), cause);
  }
}
