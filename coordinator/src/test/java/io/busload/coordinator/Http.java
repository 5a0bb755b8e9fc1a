package io.busload.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A real HTTP client against a coordinator on loopback. */
public final class Http {
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

  public HttpResponse<String> post(String path, String json) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  public HttpResponse<String> post(String path, byte[] body) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  public HttpResponse<String> put(String path, String json) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(json)));
  }

  public HttpResponse<String> delete(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).DELETE());
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
