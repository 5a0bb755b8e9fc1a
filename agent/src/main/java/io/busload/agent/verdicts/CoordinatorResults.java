package io.busload.agent.verdicts;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A sweep's results, or a device's latest result per kernel case, from a coordinator's REST API (reads need no token). */
final class CoordinatorResults {
  /** More results than a sweep of every suite on one device has. */
  static final int LIMIT = 100_000;

  private final URI base;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  CoordinatorResults(URI base) {
    this.base = URI.create(base.toString().replaceAll("/+$", "") + "/");
  }

  /** Every result of the sweep; the id must name a sweep the coordinator knows. */
  List<Measured> sweep(String id) throws BadInputException {
    List<Measured> results = results("sweepId=" + encode(id));
    if (!results.isEmpty()) {
      return results;
    }
    HttpResponse<String> sweep = get("api/sweeps/" + encode(id));
    if (sweep.statusCode() == 404) {
      throw new BadInputException("unknown sweep '" + id + "' on " + base);
    }
    check(sweep, "sweep '" + id + "'");
    throw new BadInputException("sweep '" + id + "' on " + base + " has no results yet");
  }

  /** The newest result of each kernel case measured on the device. */
  List<Measured> device(String id) throws BadInputException {
    List<Measured> all = results("device=" + encode(id));
    if (all.isEmpty()) {
      throw new BadInputException("unknown device '" + id + "' on " + base + " (it has no results)");
    }
    Map<String, Measured> newest = new LinkedHashMap<>();
    for (Measured m : all) { // newest first, as the API serves them
      newest.putIfAbsent(m.key(), m);
    }
    return List.copyOf(newest.values());
  }

  private List<Measured> results(String query) throws BadInputException {
    HttpResponse<String> response = get("api/results?" + query + "&limit=" + LIMIT);
    check(response, "results " + query);
    try {
      return Arrays.stream(JsonCodec.MAPPER.readValue(response.body(), KernelResult[].class)).map(Measured::of)
          .toList();
    } catch (JsonProcessingException e) {
      throw new BadInputException(base + " answered results that are not results: " + e.getOriginalMessage());
    }
  }

  private HttpResponse<String> get(String path) throws BadInputException {
    HttpRequest request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
        .header("Accept", "application/json").GET().build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new BadInputException("cannot reach the coordinator at " + base + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BadInputException("interrupted while asking " + base);
    }
  }

  private void check(HttpResponse<String> response, String what) throws BadInputException {
    if (response.statusCode() != 200) {
      throw new BadInputException(base + " answered " + response.statusCode() + " for " + what + ": "
          + response.body());
    }
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }
}
