package io.busload.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.coordinator.api.ApiTokens;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A real HTTP client against a coordinator on loopback. Writes carry {@link #TOKEN}, which
 * {@link #tokensIn} installs in a data directory before the coordinator starts there.
 */
public final class Http {
  /** The token every test coordinator accepts; its hash alone is in the tokens file. */
  public static final String TOKEN = "test-api-token-7Qv2mZ0c9xKfR3pL8sWnYbT1uHjE6aDg";
  private static final String BEARER = "Bearer " + TOKEN;

  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  public Http(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  public HttpResponse<String> get(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  public HttpResponse<String> get(String path, String accept) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).header("Accept", accept).GET());
  }

  /** The JSON that a GET of {@code path} answers with 200; fails the test with the status and body otherwise. */
  public JsonNode getJson(String path) {
    HttpResponse<String> response = get(path);
    assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
    return json(response);
  }

  /** A GET with {@code authorization} as the header's whole value, or no header when null; likewise {@code accept}. */
  public HttpResponse<String> get(String path, String accept, String authorization) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).GET();
    if (accept != null) {
      request.header("Accept", accept);
    }
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return send(request);
  }

  public HttpResponse<String> post(String path, String json) {
    return write("POST", path, json, BEARER);
  }

  public HttpResponse<String> post(String path, byte[] body) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
        .header("Authorization", BEARER).POST(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  public HttpResponse<String> put(String path, String json) {
    return write("PUT", path, json, BEARER);
  }

  public HttpResponse<String> delete(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", BEARER).DELETE());
  }

  /** A write with {@code authorization} as the header's whole value, or no header when null. */
  public HttpResponse<String> write(String method, String path, String json, String authorization) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
        .header("Content-Type", "application/json")
        .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return send(request);
  }

  /** Writes {@code dataDir}/api-tokens holding the hash of {@link #TOKEN}; returns {@code dataDir}. */
  public static Path tokensIn(Path dataDir) {
    try {
      Files.createDirectories(dataDir);
      Files.writeString(dataDir.resolve(CoordinatorSettings.API_TOKENS_FILE_NAME),
          "tests:" + ApiTokens.sha256Hex(TOKEN) + "\n");
      return dataDir;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  public static JsonNode json(HttpResponse<String> response) {
    try {
      return JsonCodec.MAPPER.readTree(response.body());
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + response.body(), e);
    }
  }

  private HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return client.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new AssertionError("HTTP request failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
