package io.busload.coordinator.api;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * An RFC 9457 problem document, with the extension member {@code field} naming the input that was wrong
 * (docs/contract.md, REST: errors), so a client can put the message next to the right box.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String field) {
  public static final String CONTENT_TYPE = "application/problem+json";

  public static Problem of(int status, String title, String detail, String field) {
    return new Problem("about:blank", title, status, detail, field);
  }
}
