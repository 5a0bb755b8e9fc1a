package io.busload.dashboard.coordinator;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** The filters of {@code GET /api/results}; null fields are left out. */
public record ResultQuery(String sweepId, String device, String model, String kernel, String params, Instant from,
    Integer limit) {

  public static ResultQuery sweep(String sweepId) {
    return new ResultQuery(sweepId, null, null, null, null, null, null);
  }

  public static ResultQuery device(String device) {
    return new ResultQuery(null, device, null, null, null, null, null);
  }

  public ResultQuery withDevice(String value) {
    return new ResultQuery(sweepId, value, model, kernel, params, from, limit);
  }

  public ResultQuery withKernel(String value, String paramsValue) {
    return new ResultQuery(sweepId, device, model, value, paramsValue, from, limit);
  }

  public ResultQuery withLimit(int value) {
    return new ResultQuery(sweepId, device, model, kernel, params, from, value);
  }

  /** The query string, without the leading {@code ?}. */
  public String queryString() {
    Map<String, String> values = new LinkedHashMap<>();
    put(values, "sweepId", sweepId);
    put(values, "device", device);
    put(values, "model", model);
    put(values, "kernel", kernel);
    put(values, "params", params);
    put(values, "from", from == null ? null : from.toString());
    put(values, "limit", limit == null ? null : limit.toString());
    return values.entrySet().stream()
        .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
        .collect(Collectors.joining("&"));
  }

  private static void put(Map<String, String> values, String name, String value) {
    if (value != null && !value.isBlank()) {
      values.put(name, value);
    }
  }
}
