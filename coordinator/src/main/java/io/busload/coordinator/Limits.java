package io.busload.coordinator;

import io.busload.protocol.EnvNumbers;
import java.time.Duration;
import java.util.Map;

/**
 * How much load the coordinator takes before it refuses, and with what it does the work it takes. Every cap answers
 * with a refusal the sender can act on (HTTP 429 or 503 with {@code Retry-After}; a failed ack that an agent retries,
 * its result kept in its outbox), so that one client's flood delays only itself and never costs a stored result.
 * docs/contract.md lists each setting with its default.
 *
 * @param ingestWorkers threads of the pool that stores results, hellos, statuses and pushes
 *     ({@code BUSLOAD_INGEST_WORKERS}, default 4)
 * @param analysisWorkers threads of the pool that runs the analysis reads (verdicts, change points, annotations,
 *     comparisons) and the regression checks ({@code BUSLOAD_ANALYSIS_WORKERS}, default 2)
 * @param analysisConnections database connections of the analysis pool, apart from the ingest's
 *     ({@code BUSLOAD_DB_ANALYSIS_CONNECTIONS}, default 2)
 * @param analysisQueue analysis requests waiting for a worker before more are refused with 503
 *     ({@code BUSLOAD_ANALYSIS_QUEUE}, default 16)
 * @param annotationsTtl how long one answer of {@code GET /api/history/annotations} is served again to the same
 *     question ({@code BUSLOAD_ANNOTATIONS_TTL_SECONDS}, default 10)
 * @param pendingResults results waiting for their batch before more are refused as busy
 *     ({@code BUSLOAD_PENDING_RESULTS}, default 20,000: twenty full batches)
 * @param concurrentPushes pushes read or stored at once before more are refused with 429
 *     ({@code BUSLOAD_CONCURRENT_PUSHES}, default 4: at most 256 MiB of bodies held)
 * @param restConnectionsPerClient REST connections one client address holds at once
 *     ({@code BUSLOAD_REST_CONNECTIONS_PER_CLIENT}, default 32)
 * @param bridgeConnectionsPerClient bridge connections one client address holds at once
 *     ({@code BUSLOAD_BRIDGE_CONNECTIONS_PER_CLIENT}, default 512: many agents may share one NAT address)
 * @param idleTimeout a connection with nothing read or written for this long is closed, REST and bridge
 *     ({@code BUSLOAD_IDLE_TIMEOUT_SECONDS}, default 60; the agents ping the bridge every 5 s)
 * @param headerTimeout a connection whose first request's headers are not all in after this long is closed
 *     ({@code BUSLOAD_HEADER_TIMEOUT_SECONDS}, default 10)
 * @param retryAfter what a refusal tells the client to wait ({@code BUSLOAD_RETRY_AFTER_SECONDS}, default 5)
 */
public record Limits(int ingestWorkers, int analysisWorkers, int analysisConnections, int analysisQueue,
    Duration annotationsTtl, int pendingResults, int concurrentPushes, int restConnectionsPerClient,
    int bridgeConnectionsPerClient, Duration idleTimeout, Duration headerTimeout, Duration retryAfter) {

  public static final Limits DEFAULTS = new Limits(4, 2, 2, 16, Duration.ofSeconds(10), 20_000, 4, 32, 512,
      Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(5));

  public Limits {
    positive("BUSLOAD_INGEST_WORKERS", ingestWorkers);
    positive("BUSLOAD_ANALYSIS_WORKERS", analysisWorkers);
    positive("BUSLOAD_DB_ANALYSIS_CONNECTIONS", analysisConnections);
    positive("BUSLOAD_ANALYSIS_QUEUE", analysisQueue);
    positive("BUSLOAD_PENDING_RESULTS", pendingResults);
    positive("BUSLOAD_CONCURRENT_PUSHES", concurrentPushes);
    positive("BUSLOAD_REST_CONNECTIONS_PER_CLIENT", restConnectionsPerClient);
    positive("BUSLOAD_BRIDGE_CONNECTIONS_PER_CLIENT", bridgeConnectionsPerClient);
    positive("BUSLOAD_IDLE_TIMEOUT_SECONDS", idleTimeout.toSeconds());
    positive("BUSLOAD_HEADER_TIMEOUT_SECONDS", headerTimeout.toSeconds());
    positive("BUSLOAD_RETRY_AFTER_SECONDS", retryAfter.toSeconds());
    if (annotationsTtl.isNegative()) {
      throw new IllegalArgumentException("BUSLOAD_ANNOTATIONS_TTL_SECONDS: 0 or more, got " + annotationsTtl.toSeconds());
    }
  }

  /** Each {@code BUSLOAD_*} variable named above over its default; a value that is not a number names its variable. */
  public static Limits fromEnvironment(Map<String, String> env) {
    Limits d = DEFAULTS;
    return new Limits(
        number(env, "BUSLOAD_INGEST_WORKERS", d.ingestWorkers()),
        number(env, "BUSLOAD_ANALYSIS_WORKERS", d.analysisWorkers()),
        number(env, "BUSLOAD_DB_ANALYSIS_CONNECTIONS", d.analysisConnections()),
        number(env, "BUSLOAD_ANALYSIS_QUEUE", d.analysisQueue()),
        Duration.ofSeconds(number(env, "BUSLOAD_ANNOTATIONS_TTL_SECONDS", (int) d.annotationsTtl().toSeconds())),
        number(env, "BUSLOAD_PENDING_RESULTS", d.pendingResults()),
        number(env, "BUSLOAD_CONCURRENT_PUSHES", d.concurrentPushes()),
        number(env, "BUSLOAD_REST_CONNECTIONS_PER_CLIENT", d.restConnectionsPerClient()),
        number(env, "BUSLOAD_BRIDGE_CONNECTIONS_PER_CLIENT", d.bridgeConnectionsPerClient()),
        Duration.ofSeconds(number(env, "BUSLOAD_IDLE_TIMEOUT_SECONDS", (int) d.idleTimeout().toSeconds())),
        Duration.ofSeconds(number(env, "BUSLOAD_HEADER_TIMEOUT_SECONDS", (int) d.headerTimeout().toSeconds())),
        Duration.ofSeconds(number(env, "BUSLOAD_RETRY_AFTER_SECONDS", (int) d.retryAfter().toSeconds())));
  }

  public Limits withPendingResults(int n) {
    return new Limits(ingestWorkers, analysisWorkers, analysisConnections, analysisQueue, annotationsTtl, n,
        concurrentPushes, restConnectionsPerClient, bridgeConnectionsPerClient, idleTimeout, headerTimeout, retryAfter);
  }

  public Limits withConcurrentPushes(int n) {
    return new Limits(ingestWorkers, analysisWorkers, analysisConnections, analysisQueue, annotationsTtl,
        pendingResults, n, restConnectionsPerClient, bridgeConnectionsPerClient, idleTimeout, headerTimeout, retryAfter);
  }

  public Limits withConnectionsPerClient(int rest, int bridge) {
    return new Limits(ingestWorkers, analysisWorkers, analysisConnections, analysisQueue, annotationsTtl,
        pendingResults, concurrentPushes, rest, bridge, idleTimeout, headerTimeout, retryAfter);
  }

  public Limits withTimeouts(Duration idle, Duration header) {
    return new Limits(ingestWorkers, analysisWorkers, analysisConnections, analysisQueue, annotationsTtl,
        pendingResults, concurrentPushes, restConnectionsPerClient, bridgeConnectionsPerClient, idle, header,
        retryAfter);
  }

  private static void positive(String field, long value) {
    if (value < 1) {
      throw new IllegalArgumentException(field + ": at least 1, got " + value);
    }
  }

  private static int number(Map<String, String> env, String field, int fallback) {
    return EnvNumbers.wholeNumber(env, field, fallback, "a whole number");
  }
}
