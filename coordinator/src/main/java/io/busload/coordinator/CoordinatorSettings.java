package io.busload.coordinator;

import io.busload.coordinator.fleet.MeasuredAtWindow;
import io.busload.coordinator.store.DatabaseSettings;
import io.busload.protocol.cluster.ClusterSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the coordinator is told, resolved once before it starts: command line over environment over
 * defaults.
 *
 * @param dataDir where the database lives; a restart on the same directory finds every stored result
 * @param httpHost interface for the REST API; loopback unless the fleet's other hosts need it
 * @param httpPort REST port; 0 picks a free one (tests)
 * @param cluster how to join the fleet's cluster
 * @param database the PostgreSQL to use; {@link DatabaseSettings#EMBEDDED} starts one in {@code dataDir}
 * @param apiTokensFile the REST API's tokens ({@code name:sha256-hex} lines); made with one {@code admin} token
 *     when missing
 * @param firstApiTokenFile where that first token is handed over (mode 600); null prints it once on stdout
 * @param restTls serve the REST API over HTTPS with the coordinator's fleet certificate ({@code cluster.tls()}),
 *     so API tokens never cross the network in clear
 * @param bridgePort the agents' event-bus bridge on {@code cluster.host()}, with mutual TLS when the
 *     cluster has a certificate; {@link #NO_BRIDGE} serves none (agents join the cluster), 0 picks a free port
 * @param measuredAtWindow how far from the coordinator's clock a result's measuredAt may be for it to be taken
 * @param limits the caps on load and the pools that do the work ({@link Limits}, {@code BUSLOAD_*} variables)
 * @param sampleRetention how long results' raw samples are kept ({@code BUSLOAD_SAMPLE_RETENTION}, default
 *     {@link #DEFAULT_SAMPLE_RETENTION}); null keeps them for good. Summaries are kept for good either way
 */
public record CoordinatorSettings(Path dataDir, String httpHost, int httpPort, ClusterSettings cluster,
    DatabaseSettings database, Path apiTokensFile, Path firstApiTokenFile, boolean restTls, int bridgePort,
    MeasuredAtWindow measuredAtWindow, Limits limits, Duration sampleRetention) {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorSettings.class);
  public static final int NO_BRIDGE = -1;
  public static final String API_TOKENS_FILE_NAME = "api-tokens";

  public static final int DEFAULT_HTTP_PORT = 8081;
  public static final int DEFAULT_EVENT_BUS_PORT = 7701;
  public static final String DEFAULT_HTTP_HOST = "127.0.0.1";
  public static final Duration DEFAULT_SAMPLE_RETENTION = Duration.ofDays(90);
  /** Less than a day would drop samples that tonight's verdicts still compare. */
  public static final Duration SHORTEST_SAMPLE_RETENTION = Duration.ofDays(1);

  public CoordinatorSettings {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(httpHost, "httpHost");
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(apiTokensFile, "apiTokensFile");
    Objects.requireNonNull(measuredAtWindow, "measuredAtWindow");
    Objects.requireNonNull(limits, "limits");
    if (httpPort < 0 || httpPort > 65535) {
      throw new IllegalArgumentException("HTTP port out of range: " + httpPort);
    }
    if (bridgePort < NO_BRIDGE || bridgePort > 65535) {
      throw new IllegalArgumentException("BUSLOAD_BRIDGE_PORT: out of range: " + bridgePort);
    }
    if (sampleRetention != null && sampleRetention.compareTo(SHORTEST_SAMPLE_RETENTION) < 0) {
      throw new IllegalArgumentException("BUSLOAD_SAMPLE_RETENTION: at least 1d (samples are compared the night"
          + " they are measured), got " + sampleRetention);
    }
    if (restTls && (cluster == null || cluster.tls() == null)) {
      throw new IllegalArgumentException("BUSLOAD_REST_TLS=on needs the coordinator's fleet certificate:"
          + " set BUSLOAD_TLS_DIR (./busload certs writes it)");
    }
  }

  /** Everything but the sample retention, which is the default. */
  public CoordinatorSettings(Path dataDir, String httpHost, int httpPort, ClusterSettings cluster,
      DatabaseSettings database, Path apiTokensFile, Path firstApiTokenFile, boolean restTls, int bridgePort,
      MeasuredAtWindow measuredAtWindow, Limits limits) {
    this(dataDir, httpHost, httpPort, cluster, database, apiTokensFile, firstApiTokenFile, restTls, bridgePort,
        measuredAtWindow, limits, DEFAULT_SAMPLE_RETENTION);
  }

  /** {@link MeasuredAtWindow#DEFAULT} and the default {@link Limits}. */
  public CoordinatorSettings(Path dataDir, String httpHost, int httpPort, ClusterSettings cluster,
      DatabaseSettings database, Path apiTokensFile, Path firstApiTokenFile, boolean restTls, int bridgePort) {
    this(dataDir, httpHost, httpPort, cluster, database, apiTokensFile, firstApiTokenFile, restTls, bridgePort,
        MeasuredAtWindow.DEFAULT, Limits.DEFAULTS);
  }

  public CoordinatorSettings withLimits(Limits newLimits) {
    return new CoordinatorSettings(dataDir, httpHost, httpPort, cluster, database, apiTokensFile, firstApiTokenFile,
        restTls, bridgePort, measuredAtWindow, newLimits, sampleRetention);
  }

  /** No bridge: agents join the cluster. */
  public CoordinatorSettings(Path dataDir, String httpHost, int httpPort, ClusterSettings cluster,
      DatabaseSettings database, Path apiTokensFile, Path firstApiTokenFile, boolean restTls) {
    this(dataDir, httpHost, httpPort, cluster, database, apiTokensFile, firstApiTokenFile, restTls, NO_BRIDGE);
  }

  public CoordinatorSettings withBridgePort(int port) {
    return new CoordinatorSettings(dataDir, httpHost, httpPort, cluster, database, apiTokensFile, firstApiTokenFile,
        restTls, port, measuredAtWindow, limits, sampleRetention);
  }

  public CoordinatorSettings withMeasuredAtWindow(MeasuredAtWindow window) {
    return new CoordinatorSettings(dataDir, httpHost, httpPort, cluster, database, apiTokensFile, firstApiTokenFile,
        restTls, bridgePort, window, limits, sampleRetention);
  }

  /** {@code keep} as the sample retention; null keeps samples for good. */
  public CoordinatorSettings withSampleRetention(Duration keep) {
    return new CoordinatorSettings(dataDir, httpHost, httpPort, cluster, database, apiTokensFile, firstApiTokenFile,
        restTls, bridgePort, measuredAtWindow, limits, keep);
  }

  /** Plain HTTP for the REST API. */
  public CoordinatorSettings(Path dataDir, String httpHost, int httpPort, ClusterSettings cluster,
      DatabaseSettings database, Path apiTokensFile, Path firstApiTokenFile) {
    this(dataDir, httpHost, httpPort, cluster, database, apiTokensFile, firstApiTokenFile, false);
  }

  /** Tokens in {@code dataDir}, the first one printed. */
  public CoordinatorSettings(Path dataDir, String httpHost, int httpPort, ClusterSettings cluster,
      DatabaseSettings database) {
    this(dataDir, httpHost, httpPort, cluster, database, dataDir.resolve(API_TOKENS_FILE_NAME), null);
  }

  /** With the embedded PostgreSQL in {@code dataDir}, the local default. */
  public CoordinatorSettings(Path dataDir, String httpHost, int httpPort, ClusterSettings cluster) {
    this(dataDir, httpHost, httpPort, cluster, DatabaseSettings.EMBEDDED);
  }

  /**
   * Layers the command line (null where not given) over {@code BUSLOAD_DATA}, {@code BUSLOAD_HTTP_HOST},
   * {@code BUSLOAD_HTTP_PORT}, {@code BUSLOAD_DB_URL} (with {@code BUSLOAD_DB_USER}, {@code BUSLOAD_DB_PASSWORD}),
   * {@code BUSLOAD_API_TOKENS_FILE} (default {@code api-tokens} in the data directory; imported into the store at
   * start), {@code BUSLOAD_ALLOW_PLAIN_HTTP} ({@code 1}: serve plain HTTP on an address other than loopback),
   * {@code BUSLOAD_FIRST_API_TOKEN_FILE}, {@code BUSLOAD_BRIDGE_PORT} (default 7704; {@code off}: no bridge), {@code BUSLOAD_REST_TLS} ({@code on}: HTTPS with the certificate of
   * {@code BUSLOAD_TLS_DIR}; {@code off}, the default: plain HTTP) the limits' variables ({@link Limits})
   * and the {@code BUSLOAD_CLUSTER_*} variables, over
   * the defaults of docs/contract.md. {@code BUSLOAD_MAX_CLOCK_SKEW} (default 24h) and {@code BUSLOAD_MAX_RESULT_AGE}
   * (default 400d) bound a result's measuredAt ahead of and behind the coordinator's clock ({@link MeasuredAtWindow}).
   * {@code BUSLOAD_SAMPLE_RETENTION} (default 90d, or {@code forever}) is how long raw samples are kept.
   */
  public static CoordinatorSettings resolve(Path dataOption, String httpHostOption, Integer httpPortOption,
      Map<String, String> env, String userHome) {
    Path dataDir = dataOption != null ? dataOption
        : present(env.get("BUSLOAD_DATA")) ? Path.of(env.get("BUSLOAD_DATA").trim())
        : Path.of(userHome, ".busload", "coordinator");
    String httpHost = httpHostOption != null ? httpHostOption
        : present(env.get("BUSLOAD_HTTP_HOST")) ? env.get("BUSLOAD_HTTP_HOST").trim() : DEFAULT_HTTP_HOST;
    int httpPort = httpPortOption != null ? httpPortOption : port(env.get("BUSLOAD_HTTP_PORT"));
    ClusterSettings cluster = ClusterSettings.fromEnvironment(env, ClusterSettings.COORDINATOR, DEFAULT_EVENT_BUS_PORT);
    Path tokens = present(env.get("BUSLOAD_API_TOKENS_FILE")) ? Path.of(env.get("BUSLOAD_API_TOKENS_FILE").trim())
        : dataDir.resolve(API_TOKENS_FILE_NAME);
    Path firstToken = present(env.get("BUSLOAD_FIRST_API_TOKEN_FILE"))
        ? Path.of(env.get("BUSLOAD_FIRST_API_TOKEN_FILE").trim()).toAbsolutePath() : null;
    boolean restTls = restTls(env.get("BUSLOAD_REST_TLS"));
    plainHttpCheck(httpHost, restTls, env.get("BUSLOAD_ALLOW_PLAIN_HTTP"));
    return new CoordinatorSettings(dataDir.toAbsolutePath(), httpHost, httpPort, cluster,
        DatabaseSettings.fromEnvironment(env), tokens.toAbsolutePath(), firstToken, restTls,
        // Agents reach the fleet through the bridge by default, so every coordinator serves it unless told
        // off (a fleet whose agents all join the cluster).
        io.busload.protocol.bridge.BridgeClient.portSetting(env.get("BUSLOAD_BRIDGE_PORT")).orElse(NO_BRIDGE),
        new MeasuredAtWindow(duration(env, "BUSLOAD_MAX_CLOCK_SKEW", MeasuredAtWindow.DEFAULT_AHEAD),
            duration(env, "BUSLOAD_MAX_RESULT_AGE", MeasuredAtWindow.DEFAULT_BEHIND)),
        Limits.fromEnvironment(env), sampleRetention(env.get("BUSLOAD_SAMPLE_RETENTION")));
  }

  /**
   * {@code BUSLOAD_SAMPLE_RETENTION}: a duration such as {@code 90d} (whole months of samples are dropped once all
   * of a month is older), or {@code forever} to keep every sample; unset means {@link #DEFAULT_SAMPLE_RETENTION}.
   */
  static Duration sampleRetention(String value) {
    if (!present(value)) {
      return DEFAULT_SAMPLE_RETENTION;
    }
    if (value.strip().equalsIgnoreCase("forever")) {
      return null;
    }
    try {
      return MeasuredAtWindow.parse("BUSLOAD_SAMPLE_RETENTION", value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("BUSLOAD_SAMPLE_RETENTION: a duration such as 90d or 2160h, or forever,"
          + " not '" + value.strip() + "'", e);
    }
  }

  private static java.time.Duration duration(Map<String, String> env, String name, java.time.Duration fallback) {
    return present(env.get(name)) ? MeasuredAtWindow.parse(name, env.get(name)) : fallback;
  }

  /**
   * Plain HTTP off loopback sends API tokens over the network in clear, where anyone on the path can take them: it
   * is refused unless the operator says {@code BUSLOAD_ALLOW_PLAIN_HTTP=1}, and then logged as a WARN at every start
   * (the event bus likewise refuses plain TCP off loopback).
   */
  private static void plainHttpCheck(String httpHost, boolean restTls, String allow) {
    if (restTls || loopback(httpHost)) {
      return;
    }
    String why = "the REST API on " + httpHost + " (BUSLOAD_HTTP_HOST or --http-host) is not loopback and"
        + " BUSLOAD_REST_TLS is not on, so API tokens would cross the network in clear";
    if (!"1".equals(allow == null ? null : allow.strip())) {
      throw new IllegalArgumentException(why + ": set BUSLOAD_REST_TLS=on (with BUSLOAD_TLS_DIR), bind to 127.0.0.1,"
          + " or set BUSLOAD_ALLOW_PLAIN_HTTP=1 to accept that");
    }
    LOG.warn("{}; serving plain HTTP anyway because BUSLOAD_ALLOW_PLAIN_HTTP=1", why);
  }

  /** Whether every address {@code host} names is a loopback one; a name that does not resolve is not. */
  static boolean loopback(String host) {
    try {
      InetAddress[] addresses = InetAddress.getAllByName(host);
      for (InetAddress address : addresses) {
        if (!address.isLoopbackAddress()) {
          return false;
        }
      }
      return addresses.length > 0;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static boolean restTls(String value) {
    if (!present(value)) {
      return false;
    }
    return switch (value.strip().toLowerCase(java.util.Locale.ROOT)) {
      case "on" -> true;
      case "off" -> false;
      default -> throw new IllegalArgumentException("BUSLOAD_REST_TLS: 'on' or 'off', not '" + value.strip() + "'");
    };
  }

  private static boolean present(String value) {
    return value != null && !value.isBlank();
  }

  private static int port(String value) {
    return present(value) ? portNumber("BUSLOAD_HTTP_PORT", value) : DEFAULT_HTTP_PORT;
  }

  private static int portNumber(String field, String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(field + ": not a port number: '" + value + "'");
    }
  }
}
