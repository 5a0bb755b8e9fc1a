package io.busload.agent.push;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * Pushes one results file to a coordinator ({@code POST /api/pushes}, docs/contract.md) and says what became of it.
 * Blocking; one request per file, so the coordinator stores each file whole or not at all.
 */
public final class PushClient {
  /** A coordinator that accepted the connection answers within this, or is taken for hung. */
  static final Duration CONNECT = Duration.ofSeconds(10);
  /** A file is stored in one transaction; a big one on a busy database may take a while. */
  static final Duration ANSWER = Duration.ofMinutes(5);

  private final URI base;
  private final HttpClient http;
  private final String token;

  /** {@code trust} null: the JDK's CAs (plain http, or https behind a public certificate). */
  public PushClient(URI base, String token, SSLContext trust) {
    this.base = base.toString().endsWith("/") ? base : URI.create(base + "/");
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(CONNECT);
    if (trust != null) {
      builder.sslContext(trust);
    }
    this.http = builder.build();
    this.token = token;
  }

  public URI base() {
    return base;
  }

  /** What the coordinator made of one file. */
  public sealed interface Answer permits Stored, Refused, Unauthorized, Failed {}

  /** Stored: {@code stored} of {@code results} were new, the rest were there already (same id, same contents). */
  public record Stored(String pushId, int results, int stored, int alreadyPresent, List<String> runIds)
      implements Answer {}

  /** The file was refused (400, 409, 413): nothing of it was stored. */
  public record Refused(int status, String detail) implements Answer {}

  /** The token was refused (401): nothing was stored. */
  public record Unauthorized(String detail) implements Answer {}

  /** The coordinator failed or answered what no coordinator answers (5xx, not JSON). */
  public record Failed(int status, String detail) implements Answer {}

  /** The coordinator could not be reached at all: down, wrong address, refused connection, timed out. */
  public static final class Unreachable extends Exception {
    Unreachable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Sends {@code body} as the file {@code file} from {@code host}. {@link Unreachable} when no answer came; any answer
   * is an {@link Answer}.
   */
  public Answer push(byte[] body, String file, String host) throws Unreachable, InterruptedException {
    return push(body, file, host, null, null);
  }

  /**
   * {@link #push(byte[], String, String)} with what another tool's output lacks: when it was measured and the tool's
   * version (either may be null; the coordinator asks for them only where the file does not say).
   */
  public Answer push(byte[] body, String file, String host, java.time.Instant measuredAt, String toolVersion)
      throws Unreachable, InterruptedException {
    URI uri = base.resolve("api/pushes?host=" + encode(host) + "&file=" + encode(file)
        + (measuredAt == null ? "" : "&measuredAt=" + encode(measuredAt.toString()))
        + (toolVersion == null ? "" : "&toolVersion=" + encode(toolVersion)));
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(ANSWER)
        .header("Content-Type", contentType(file))
        .header("Accept", "application/json")
        .header("Authorization", "Bearer " + token)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new Unreachable("cannot reach the coordinator at " + base + " (" + describe(e) + ")", e);
    }
    return answer(response.statusCode(), response.body());
  }

  static Answer answer(int status, String body) {
    JsonNode json;
    try {
      json = JsonCodec.MAPPER.readTree(body);
    } catch (IOException e) {
      json = null;
    }
    if (status == 200 || status == 201) {
      if (json == null || !json.has("stored")) {
        return new Failed(status, "answered " + status + " without a push outcome: " + shorten(body));
      }
      List<String> runs = new ArrayList<>();
      json.path("runIds").forEach(n -> runs.add(n.asText()));
      return new Stored(json.path("pushId").asText(), json.path("results").asInt(), json.path("stored").asInt(),
          json.path("alreadyPresent").asInt(), runs);
    }
    String detail = json != null && json.hasNonNull("detail") ? json.get("detail").asText() : shorten(body);
    if (status == 401 || status == 403) {
      return new Unauthorized(detail);
    }
    if (status == 400 || status == 409 || status == 413 || status == 422) {
      return new Refused(status, detail);
    }
    return new Failed(status, detail);
  }

  static String contentType(String file) {
    String name = file.toLowerCase(java.util.Locale.ROOT);
    return name.endsWith(".csv") ? "text/csv; charset=utf-8"
        : name.endsWith(".json") ? "application/json" : "application/octet-stream";
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  /** The JDK's connect failures often carry no message ("ConnectException: null"). */
  private static String describe(IOException e) {
    Throwable cause = e;
    while (cause.getCause() != null && (cause.getMessage() == null || cause.getMessage().isBlank())) {
      cause = cause.getCause();
    }
    String message = cause.getMessage();
    return cause.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
  }

  private static String shorten(String body) {
    String line = body == null ? "" : body.strip().lines().findFirst().orElse("");
    return line.length() > 300 ? line.substring(0, 300) + "..." : line;
  }
}
