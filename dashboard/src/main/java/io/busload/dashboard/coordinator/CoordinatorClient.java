package io.busload.dashboard.coordinator;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * Blocking client of the coordinator's REST API (docs/contract.md, REST), with java.net.http and the project's
 * one JSON mapping ({@link JsonCodec#MAPPER}), so results read here are the very records agents sent.
 *
 * <p>Short timeouts: a view waits on these calls, and an unreachable coordinator should show as a message within
 * seconds, not as a hung page.
 */
@Service
public class CoordinatorClient {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final URI base;
  private final HttpClient http;
  private final String token;
  private final Path tokenFile;

  /** Without an API token: reads only (the coordinator refuses writes with 401). */
  public CoordinatorClient(String baseUrl) {
    this(baseUrl, "", "", "");
  }

  /**
   * Writes carry {@code token} ({@code BUSLOAD_API_TOKEN}) or, when that is empty, the token in {@code tokenFile}
   * ({@code BUSLOAD_API_TOKEN_FILE}, what the units use: an environment is shown by {@code systemctl show}).
   * The file is read at each write, so it may appear after the dashboard starts (./busload up hands the
   * coordinator's first token over) and a new token needs no restart.
   *
   * <p>An {@code https} coordinator (its {@code BUSLOAD_REST_TLS=on}) is checked against the CAs of this dashboard's
   * fleet certificate ({@code tlsDir}, {@code BUSLOAD_TLS_DIR}: its trust store holds the coordinator CA), or,
   * without one, against the JDK's CAs (a coordinator behind a proxy with a public certificate).
   */
  @Autowired
  public CoordinatorClient(
      @Value("${busload.coordinator-url:${BUSLOAD_COORDINATOR_URL:http://127.0.0.1:8081}}") String baseUrl,
      @Value("${busload.api-token:${BUSLOAD_API_TOKEN:}}") String token,
      @Value("${busload.api-token-file:${BUSLOAD_API_TOKEN_FILE:}}") String tokenFile,
      @Value("${busload.tls-dir:${BUSLOAD_TLS_DIR:}}") String tlsDir) {
    this.base = URI.create(baseUrl.endsWith("/") ? baseUrl : baseUrl + "/");
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(TIMEOUT);
    if ("https".equalsIgnoreCase(base.getScheme()) && tlsDir != null && !tlsDir.isBlank()) {
      client.sslContext(io.busload.protocol.cluster.FleetTls.inDirectory(Path.of(tlsDir.strip())).trustContext());
    }
    this.http = client.build();
    this.token = token == null ? "" : token.strip();
    this.tokenFile = tokenFile == null || tokenFile.isBlank() ? null : Path.of(tokenFile.strip());
  }

  /** The bearer token for writes, or empty when none is configured or its file is not there (yet). */
  private Optional<String> token() {
    if (!token.isEmpty()) {
      return Optional.of(token);
    }
    if (tokenFile == null) {
      return Optional.empty();
    }
    try {
      String read = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
      return read.isEmpty() ? Optional.empty() : Optional.of(read);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      // The path and the reason only: never the content.
      throw new CoordinatorException("the API token file " + tokenFile + " cannot be read (" + describe(e) + ")", e);
    }
  }

  private HttpRequest.Builder authorized(HttpRequest.Builder request) {
    token().ifPresent(t -> request.header("Authorization", "Bearer " + t));
    return request;
  }

  public URI base() {
    return base;
  }

  public List<Agent> agents() {
    return read(get("api/agents"), new TypeReference<>() {});
  }

  /** Newest first, as the coordinator orders them. */
  public List<Sweep> sweeps() {
    return read(get("api/sweeps"), new TypeReference<>() {});
  }

  /** Only the newest: the list holds every sweep's runs, a hundred sweeps' worth by default. */
  public Optional<Sweep> latestSweep() {
    List<Sweep> newest = read(get("api/sweeps?limit=1"), new TypeReference<>() {});
    return newest.stream().findFirst();
  }

  public List<KernelResult> results(String sweepId, int limit) {
    return read(get("api/results?sweepId=" + URLEncoder.encode(sweepId, StandardCharsets.UTF_8) + "&limit=" + limit),
        new TypeReference<>() {});
  }

  public List<KernelResult> results(ResultQuery query) {
    return read(get("api/results?" + query.queryString()), new TypeReference<>() {});
  }

  /**
   * The newest valid result of each kernel and params of one device or, with {@code device} null, of one device
   * model: what the Compare view draws, read in one bounded answer however many results are stored.
   */
  public List<KernelResult> latestResults(String device, String model) {
    String query = device != null ? "device=" + encode(device) : "model=" + encode(model);
    return read(get("api/results/latest?" + query), new TypeReference<>() {});
  }

  /** Every kernel and params with a valid result, sorted. */
  public List<KernelChoice> kernels() {
    return read(get("api/kernels"), new TypeReference<>() {});
  }

  /** The newest {@code limit} points of one kernel and params on every device, newest first. */
  public List<HistoryPoint> history(String kernel, String params, int limit) {
    return read(get("api/history?kernel=" + encode(kernel) + "&params=" + encode(params) + "&limit=" + limit),
        new TypeReference<>() {});
  }

  /** The results as the coordinator streams them, {@code format} json or csv, for a download. */
  public InputStream export(ResultQuery query, String format) {
    HttpRequest request = HttpRequest.newBuilder(base.resolve("api/results?" + query.queryString() + "&format="
        + URLEncoder.encode(format, StandardCharsets.UTF_8))).GET().build();
    try {
      HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
      if (response.statusCode() / 100 != 2) {
        byte[] body = response.body().readAllBytes();
        throw new CoordinatorException(request.method() + " " + request.uri().getPath() + " was refused ("
            + response.statusCode() + "): " + new String(body, StandardCharsets.UTF_8));
      }
      return response.body();
    } catch (IOException e) {
      throw new CoordinatorException("the coordinator at " + base + " is unreachable (" + describe(e) + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CoordinatorException("interrupted while asking the coordinator at " + base, e);
    }
  }

  public List<Device> devices() {
    return read(get("api/devices"), new TypeReference<>() {});
  }

  /**
   * Devices known only through results pushed from outside the fleet ({@code ./busload push}): never a
   * schedule's target, but drawn beside the fleet's devices wherever results are.
   */
  public List<Device> pushedDevices() {
    return read(get("api/pushes/devices"), new TypeReference<>() {});
  }

  /** Runs, newest first; {@code state} and {@code device} may be null. */
  public List<Run> runs(String state, String device, int limit) {
    return read(get(listing("api/runs", limit, "state", state, "device", device)), new TypeReference<>() {});
  }

  public Optional<Run> run(String runId) {
    HttpRequest request = get("api/runs/" + URLEncoder.encode(runId, StandardCharsets.UTF_8));
    if (send(request).statusCode() == 404) {
      return Optional.empty();
    }
    return Optional.of(read(request, new TypeReference<>() {}));
  }

  /** Change points, z-score alarms and accepted marks of one kernel case, per device. */
  public List<Annotations> annotations(String kernel, String params) {
    return read(get("api/history/annotations?kernel=" + encode(kernel) + "&params=" + encode(params)),
        new TypeReference<>() {});
  }

  /**
   * Two sweeps or devices ({@code sweep:ID}, {@code device:ID} or a bare id) compared on their raw samples; a
   * shift counts from {@code threshold} (0.01 is 1%).
   */
  public Verdicts verdicts(String baseline, String candidate, double threshold) {
    return read(get("api/verdicts?baseline=" + encode(baseline) + "&candidate=" + encode(candidate) + "&threshold="
        + threshold), new TypeReference<>() {});
  }

  /** Accepts a change: the series' baseline restarts at its {@code from}; refused (400) without a reason. */
  public Annotations.Accepted acceptChange(AcceptInput input) {
    return read(withBody("POST", "api/accepted-changes", input), new TypeReference<>() {});
  }

  /** Every judged device's health verdict. */
  public List<DeviceHealth> deviceHealth() {
    return read(get("api/devices/health"), new TypeReference<>() {});
  }

  /** Devices outside their cohort's band, worst first. */
  /** The fleet's certificates that expire within the coordinator's warning days, soonest first. */
  public List<ExpiringCertificate> certificatesNearExpiry() {
    JsonNode body = read(get("api/certificates"), new TypeReference<JsonNode>() {});
    return JsonCodec.MAPPER.convertValue(body.path("nearExpiry"), new TypeReference<List<ExpiringCertificate>>() {});
  }

  public List<FlaggedDevice> cohortFlags() {
    JsonNode body = read(get("api/cohort-flags"), new TypeReference<JsonNode>() {});
    return JsonCodec.MAPPER.convertValue(body.path("flags"), new TypeReference<List<FlaggedDevice>>() {});
  }

  /** Regressions and improvements, newest first; {@code device} and {@code kernel} may be null. */
  public List<Change> changes(String device, String kernel, int limit) {
    return read(get(listing("api/regressions", limit, "device", device, "kernel", kernel)), new TypeReference<>() {});
  }

  public List<Schedule> schedules() {
    return read(get("api/schedules"), new TypeReference<>() {});
  }

  public Schedule createSchedule(ScheduleInput input) {
    return read(withBody("POST", "api/schedules", input), new TypeReference<>() {});
  }

  public Schedule updateSchedule(String id, ScheduleInput input) {
    return read(withBody("PUT", "api/schedules/" + encode(id), input), new TypeReference<>() {});
  }

  public Schedule pauseSchedule(String id, boolean paused) {
    return read(withBody("POST", "api/schedules/" + encode(id) + (paused ? "/pause" : "/resume"), null),
        new TypeReference<>() {});
  }

  public void deleteSchedule(String id) {
    HttpRequest request = authorized(HttpRequest.newBuilder(base.resolve("api/schedules/" + encode(id)))
        .timeout(TIMEOUT).DELETE()).build();
    HttpResponse<byte[]> response = send(request);
    if (response.statusCode() / 100 != 2) {
      throw new CoordinatorException(refusal(request, response));
    }
  }

  /** The notification targets; the coordinator answers these reads only with the dashboard's API token. */
  public List<NotificationTarget> notificationTargets() {
    return read(authorized(HttpRequest.newBuilder(base.resolve("api/notifications/targets")).timeout(TIMEOUT)
        .header("Accept", "application/json").GET()).build(), new TypeReference<>() {});
  }

  /** The newest {@code limit} rows of the delivery log (with the dashboard's API token, as above). */
  public List<NotificationDelivery> notificationDeliveries(int limit) {
    return read(authorized(HttpRequest.newBuilder(base.resolve(listing("api/notifications/deliveries", limit)))
        .timeout(TIMEOUT).header("Accept", "application/json").GET()).build(), new TypeReference<>() {});
  }

  /** Starts a sweep of {@code suite} on every online device. */
  public SweepStarted startSweep(String suite) {
    return read(withBody("POST", "api/sweeps", Map.of("suite", suite)), new TypeReference<>() {});
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  /** {@code path?limit=N}, then {@code &name=value} for each pair whose value is not null, values encoded. */
  private static String listing(String path, int limit, String... namesAndValues) {
    StringBuilder query = new StringBuilder(path).append("?limit=").append(limit);
    for (int i = 0; i < namesAndValues.length; i += 2) {
      if (namesAndValues[i + 1] != null) {
        query.append('&').append(namesAndValues[i]).append('=').append(encode(namesAndValues[i + 1]));
      }
    }
    return query.toString();
  }

  private HttpRequest withBody(String method, String path, Object body) {
    return authorized(HttpRequest.newBuilder(base.resolve(path))
        .timeout(TIMEOUT)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(JsonCodec.toJson(body))))
        .build();
  }

  private HttpRequest get(String path) {
    return HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT).header("Accept", "application/json").GET()
        .build();
  }

  private <T> T read(HttpRequest request, TypeReference<T> type) {
    HttpResponse<byte[]> response = send(request);
    if (response.statusCode() / 100 != 2) {
      throw new CoordinatorException(refusal(request, response));
    }
    try {
      return JsonCodec.MAPPER.readValue(response.body(), type);
    } catch (IOException e) {
      throw new CoordinatorException("the coordinator at " + base + " answered " + request.uri().getPath()
          + " with JSON the dashboard cannot read: " + e.getMessage(), e);
    }
  }

  private HttpResponse<byte[]> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new CoordinatorException("the coordinator at " + base + " is unreachable (" + describe(e) + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CoordinatorException("interrupted while asking the coordinator at " + base, e);
    }
  }

  private static String describe(IOException e) {
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
  }

  /** Problem details (RFC 9457) carry the reason in {@code detail}; anything else is shown by status alone. */
  static String refusal(HttpRequest request, HttpResponse<byte[]> response) {
    String what = request.method() + " " + request.uri().getPath() + " was refused (" + response.statusCode() + ")";
    try {
      JsonNode problem = JsonCodec.MAPPER.readTree(response.body());
      if (problem != null && problem.hasNonNull("detail")) {
        return what + ": " + problem.get("detail").asText();
      }
    } catch (IOException e) {
      // Not problem+json (a proxy's HTML page, say): the status is all there is to tell.
    }
    return what;
  }
}
