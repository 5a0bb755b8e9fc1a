package io.busload.protocol;

/**
 * Versioning shared by every message (docs/upgrading.md). A reader ignores fields it does not know, so a field added
 * as optional keeps the schema version; a change an older reader would misread (a field removed, renamed, made
 * required, or given another meaning) bumps {@link #SCHEMA_VERSION}. A coordinator reads every schema version from
 * {@link #OLDEST_SCHEMA_VERSION} to {@link #SCHEMA_VERSION}, which always includes the previous release's, so agents
 * of the previous release keep working while the coordinators are upgraded first; a newer one is refused with a reason
 * that names both versions, and nothing of it is stored.
 */
public final class Protocol {
  /** The schema version this build writes, and the newest it reads. */
  public static final int SCHEMA_VERSION = 1;
  /** The oldest schema version a coordinator of this build reads: at most the previous release's. */
  public static final int OLDEST_SCHEMA_VERSION = 1;

  private Protocol() {}

  /** Every message record carries the schema version it was written with. */
  public interface Message {
    int schemaVersion();
  }

  /**
   * The release a class was built in: its jar manifest's Implementation-Version, or "dev" when it runs from classes
   * (an IDE, a module's tests).
   */
  public static String releaseOf(Class<?> type) {
    String version = type.getPackage() == null ? null : type.getPackage().getImplementationVersion();
    return version == null || version.isBlank() ? "dev" : version;
  }
}
