package io.busload.protocol;

/** Versioning shared by every message. */
public final class Protocol {
  /** Bumped when a message changes incompatibly; receivers refuse newer versions with a reason. */
  public static final int SCHEMA_VERSION = 1;

  private Protocol() {}

  /** Every message record carries the schema version it was written with. */
  public interface Message {
    int schemaVersion();
  }
}
