package io.busload.coordinator.push;

import java.util.UUID;

/**
 * A pushed file refused as a whole, before or instead of storing anything: what was wrong, and where (the line of
 * the file, the field or column, the result), so whoever pushed it can find the row.
 *
 * @see Pushing
 */
public final class PushRefused extends RuntimeException {
  private final int status;
  private final Integer line;
  private final String field;
  private final UUID resultId;

  PushRefused(int status, String detail, Integer line, String field, UUID resultId) {
    super(detail, null, false, false);
    this.status = status;
    this.line = line;
    this.field = field;
    this.resultId = resultId;
  }

  /** The file cannot be read as results at all: another format, truncated, empty. */
  static PushRefused unreadable(String detail, Integer line) {
    return new PushRefused(400, detail, line, null, null);
  }

  /** One row of the file is not a result the coordinator stores. */
  static PushRefused badRow(int line, String field, UUID resultId, String problem) {
    return new PushRefused(400, "line " + line + (field == null ? "" : ", field " + field) + ": " + problem, line,
        field, resultId);
  }

  /** A result whose id is stored (or given earlier in the file) with other contents. */
  static PushRefused conflict(int line, UUID resultId, String detail) {
    return new PushRefused(409, "line " + line + ": result " + resultId + " " + detail, line, null, resultId);
  }

  /** The HTTP status: 400 for a file or row that cannot be stored, 409 for an id stored with other contents. */
  public int status() {
    return status;
  }

  public Integer line() {
    return line;
  }

  public String field() {
    return field;
  }

  public UUID resultId() {
    return resultId;
  }
}
