package io.busload.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A coordinator's REST API as the fault tests read it: over loopback, or through {@code curl} run inside a network
 * namespace (the netns test's coordinator lives in one, and its loopback is not this JVM's). Any status but 2xx
 * is an {@link IOException}, so a wait simply tries again while a coordinator or its database is down.
 */
record FaultRest(String base, List<String> prefix, HttpClient http) {

  static FaultRest loopback(int port) {
    return new FaultRest("http://127.0.0.1:" + port, List.of(),
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build());
  }

  static FaultRest inNamespace(String namespace, int port) {
    return new FaultRest("http://127.0.0.1:" + port, List.of("ip", "netns", "exec", namespace), null);
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    return JsonCodec.MAPPER.readTree(call("GET", path, null));
  }

  JsonNode post(String path, String json) throws IOException, InterruptedException {
    return JsonCodec.MAPPER.readTree(call("POST", path, json));
  }

  private String call(String method, String path, String json) throws IOException, InterruptedException {
    if (prefix.isEmpty()) {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20))
          .header("Accept", "application/json").header("Authorization", "Bearer " + LocalFleet.TOKEN);
      request = json == null ? request.GET() : request.header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(json));
      HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        throw new IOException(method + " " + path + ": " + response.statusCode() + " " + response.body());
      }
      return response.body();
    }
    List<String> command = new ArrayList<>(prefix);
    command.addAll(List.of("curl", "-sS", "-f", "-m", "20", "-H", "Accept: application/json", "-H",
        "Authorization: Bearer " + LocalFleet.TOKEN, "-X", method));
    if (json != null) {
      command.addAll(List.of("-H", "Content-Type: application/json", "--data-binary", json));
    }
    command.add(base + path);
    Process curl = new ProcessBuilder(command).redirectErrorStream(false).start();
    byte[] out = curl.getInputStream().readAllBytes();
    byte[] err = curl.getErrorStream().readAllBytes();
    int exit = curl.waitFor();
    if (exit != 0) {
      throw new IOException(method + " " + path + " in " + prefix + ": curl exited " + exit + ": "
          + new String(err, StandardCharsets.UTF_8).strip());
    }
    return new String(out, StandardCharsets.UTF_8);
  }
}
