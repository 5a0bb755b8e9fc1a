package io.busload.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * Where a stored result came from when it did not come from a fleet agent over the event bus ({@code
 * ./busload push} brings in results of hosts that cannot join the cluster). Set by the coordinator that took the
 * push, after its checks; never by an agent, and null on every fleet result, so a result's JSON says by itself
 * whether it was pushed, in every view that serves it.
 *
 * @param kind {@link #PUSHED}
 * @param pushId the push that stored it ({@code GET /api/pushes/{pushId}})
 * @param token the name of the API token that pushed it (the name only, never the token)
 * @param host the host the file came from, as the pushing client named it
 * @param file the file's name, as the pushing client named it
 * @param address null on stored results: the network address the push came from is kept with the push, which only
 *     admin tokens see ({@code GET /api/pushes})
 * @param pushedAt when the coordinator stored it
 * @param measuredBy the other tool that measured it where the file was that tool's output; null for Busload's own
 */
public record Origin(String kind, String pushId, String token, String host, String file,
    @JsonInclude(JsonInclude.Include.NON_NULL) String address, Instant pushedAt,
    @JsonInclude(JsonInclude.Include.NON_NULL) MeasuredBy measuredBy) {
  public static final String PUSHED = "pushed";

  /** A push of Busload's own results. */
  public Origin(String kind, String pushId, String token, String host, String file, String address,
      Instant pushedAt) {
    this(kind, pushId, token, host, file, address, pushedAt, null);
  }

  /**
   * "pushed from HOST (FILE) with token NAME", and "measured by TOOL VERSION" for another tool's: for whoever reads a
   * run or a chart's tooltip.
   */
  public String describe() {
    return (measuredBy == null ? "" : "measured by " + measuredBy.describe() + ", ")
        + kind + " from " + (host == null ? "an unnamed host" : host) + (file == null ? "" : " (" + file + ")")
        + " with token " + token;
  }
}
