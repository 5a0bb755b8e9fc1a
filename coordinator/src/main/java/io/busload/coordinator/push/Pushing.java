package io.busload.coordinator.push;

import io.busload.coordinator.fleet.Intake;
import io.busload.coordinator.fleet.ResultBatcher;
import io.busload.coordinator.store.PushStore;
import io.busload.coordinator.store.ResultDifference;
import io.busload.coordinator.store.ResultStore;
import io.busload.protocol.KernelResult;
import io.busload.protocol.Origin;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes pushed files: reads one ({@link PushedFile}), puts every result through the checks results from
 * the event bus pass ({@link Intake#checkResult}), files the results under runs, stores the whole file in one
 * transaction ({@link PushStore}) and then announces what was new exactly as the fleet's intake does ({@link
 * ResultBatcher#announce}: live results in file order, regression checks). Any problem refuses the whole file and
 * stores nothing.
 *
 * <p>Storing is an upsert by the result's id, as from agents: a file pushed twice stores each result once. A result
 * whose id is stored with other contents is a conflict, never a silent second version.
 *
 * @param ingest the pool results from agents are stored on, which a push shares
 */
public record Pushing(Vertx vertx, io.vertx.core.WorkerExecutor ingest, PushStore pushes, ResultBatcher announcer,
    Clock clock) {
  private static final Logger LOG = LoggerFactory.getLogger(Pushing.class);
  /** What a sweep made for standalone results is called when its results name no suite. */
  static final String NO_SUITE = "pushed";

  /**
   * Who pushed and from where.
   *
   * @param token the name of the API token the push came with (never the token)
   * @param host the host the file comes from, as the client names it (may be null)
   * @param file the file's name, as the client names it (may be null)
   * @param address the network address the push came from
   * @param measuredAt when the file was measured, as the client says (its modification time), for formats that do
   *     not say (another tool's output); null when not given
   * @param toolVersion the other tool's version, for its output that does not print it; null when not given
   */
  public record Source(String token, String host, String file, String address, Instant measuredAt,
      String toolVersion) {
    public Source(String token, String host, String file, String address) {
      this(token, host, file, address, null, null);
    }
  }

  /** What a push did: how many results the file held, how many were new, and where they are filed. */
  public record Outcome(UUID pushId, String file, String host, String format, int results, int stored,
      int alreadyPresent, List<String> sweepIds, List<String> runIds, Instant pushedAt) {}

  /**
   * Reads, checks and stores {@code body} on a worker thread, then announces the new results on the caller's
   * context. Fails with {@link PushRefused} for a file it refuses (nothing stored), or with the store's error.
   */
  public Future<Outcome> push(Source source, byte[] body) {
    return ingest.executeBlocking(() -> store(source, body), false).map(done -> {
      announcer.announce(done.inOrder(), done.stored().fresh());
      return done.outcome();
    });
  }

  private record Done(Outcome outcome, List<ResultStore.Incoming> inOrder, PushStore.Stored stored) {}

  private Done store(Source source, byte[] body) {
    PushedFile file = PushedFile.read(body, new PushedFile.Context(source.host(), source.measuredAt(),
        source.toolVersion()));
    Instant now = clock.instant();
    UUID pushId = UUID.randomUUID();
    // The network address stays with the push (GET /api/pushes shows it to admins only), out of the results that
    // every reader sees.
    Origin origin = new Origin(Origin.PUSHED, pushId.toString(), source.token(), source.host(), source.file(), null,
        now, file.measuredBy());
    List<PushedFile.Row> rows = checked(file, announcer::outsideWindow);
    Filing filing = new Filing(rows, origin);
    Map<UUID, PushedFile.Row> byId = new HashMap<>();
    rows.forEach(row -> byId.put(row.result().id(), row));
    PushStore.Push push = new PushStore.Push(pushId, source.token(), source.host(), source.file(), source.address(),
        file.format().name().toLowerCase(java.util.Locale.ROOT), file.rows().size(), 0, now);
    PushStore.Stored stored;
    try {
      stored = pushes.store(push, filing.runs(), filing.results(),
          (pushed, existing) -> difference(byId.get(pushed.id()).result(), existing));
    } catch (PushStore.Conflict e) {
      throw PushRefused.conflict(byId.get(e.resultId()).line(), e.resultId(), "is stored already with other contents ("
          + e.getMessage() + ")");
    }
    int count = file.rows().size();
    LOG.info("push {}: {} of {} result(s) stored, {} already present; {} from {} by token '{}'", pushId,
        stored.fresh().size(), count, count - stored.fresh().size(), source.file(), source.host(), source.token());
    List<ResultStore.Incoming> inOrder = filing.results().stream().map(r -> new ResultStore.Incoming(r, null)).toList();
    Outcome outcome = new Outcome(pushId, source.file(), source.host(), push.format(), count, stored.fresh().size(),
        count - stored.fresh().size(), filing.sweepIds(), filing.runIds(), now);
    return new Done(outcome, inOrder, stored);
  }

  /**
   * Every row through the event bus's checks (measuredAt inside the window around the coordinator's clock
   * included), then the file against itself: a result given twice with the same
   * contents is stored once, with other contents it is a conflict. The rows to store, in file order.
   */
  private static List<PushedFile.Row> checked(PushedFile file,
      java.util.function.Function<KernelResult, String> window) {
    Map<UUID, PushedFile.Row> seen = new HashMap<>();
    List<PushedFile.Row> unique = new ArrayList<>();
    for (PushedFile.Row row : file.rows()) {
      // A file exported from a coordinator that took it by push says so; this coordinator says where it got it.
      KernelResult result = row.result().withOrigin(null);
      String problem = Intake.checkResult(result);
      if (problem == null) {
        problem = window.apply(result);
      }
      if (problem != null) {
        String field = field(problem);
        PushedFile.Place place = file.place(row, field);
        String detail = field != null && field.equals(place.field()) ? problem.substring(field.length() + 2) : problem;
        throw PushRefused.badRow(place.line(), place.field(), result.id(), detail);
      }
      PushedFile.Row earlier = seen.putIfAbsent(result.id(), row);
      if (earlier == null) {
        unique.add(new PushedFile.Row(row.line(), result, row.fieldLines()));
      } else {
        String different = difference(earlier.result(), row.result());
        if (different != null) {
          throw PushRefused.conflict(row.line(), result.id(), "is also on line " + earlier.line()
              + " with other contents (" + different + ")");
        }
      }
    }
    return unique;
  }

  /** The field a check's problem starts with ({@code "device.name: required"}), or null when it names none. */
  static String field(String problem) {
    int colon = problem.indexOf(": ");
    if (colon <= 0) {
      return null;
    }
    String field = problem.substring(0, colon);
    return field.contains(" ") || field.equals("unreadable") ? null : field;
  }

  /**
   * The runs a file's results go under, and the results as they are stored. A result of a fleet sweep keeps its run
   * and sweep (created here, DONE, when this coordinator never saw them); a result measured standalone ({@code
   * ./busload run}: no run) is filed under one run per device in one sweep for the file. Those ids derive from the
   * results' own ids, so the same file pushed again files its results under the same run.
   */
  private static final class Filing {
    private final Map<String, PushStore.PushedRun> runs = new LinkedHashMap<>();
    private final List<KernelResult> results = new ArrayList<>();

    Filing(List<PushedFile.Row> rows, Origin origin) {
      List<KernelResult> all = rows.stream().map(PushedFile.Row::result).toList();
      String fileSweep = derived("sweep", "", all.stream().filter(r -> r.sweepId() == null));
      Map<String, String> standaloneRuns = new HashMap<>();
      for (KernelResult r : all) {
        if (r.runId() == null) {
          standaloneRuns.computeIfAbsent(r.device().id(), device -> derived("run", device,
              all.stream().filter(o -> o.runId() == null && o.device().id().equals(device))));
        }
      }
      Map<String, Integer> counts = new HashMap<>();
      for (KernelResult r : all) {
        String runId = r.runId() != null ? r.runId() : standaloneRuns.get(r.device().id());
        counts.merge(runId, 1, Integer::sum);
      }
      for (KernelResult r : all) {
        String runId = r.runId() != null ? r.runId() : standaloneRuns.get(r.device().id());
        String sweepId = r.sweepId() != null ? r.sweepId() : fileSweep;
        runs.computeIfAbsent(runId, id -> new PushStore.PushedRun(id, sweepId, r.suite() == null ? NO_SUITE : r.suite(),
            r.device().id(), r.agentId() != null ? r.agentId() : origin.host() != null ? origin.host() : NO_SUITE,
            counts.get(id), origin.describe()));
        results.add(r.withRun(runId, sweepId).withOrigin(origin));
      }
    }

    /** A name-based UUID of the ids of {@code results}: the same results always give the same id. */
    private static String derived(String what, String scope, java.util.stream.Stream<KernelResult> results) {
      TreeSet<String> ids = new TreeSet<>();
      results.forEach(r -> ids.add(r.id().toString()));
      return UUID.nameUUIDFromBytes(("busload push " + what + "\n" + scope + "\n" + String.join("\n", ids))
          .getBytes(StandardCharsets.UTF_8)).toString();
    }

    List<PushStore.PushedRun> runs() {
      return List.copyOf(runs.values());
    }

    List<KernelResult> results() {
      return results;
    }

    List<String> sweepIds() {
      return List.copyOf(new LinkedHashSet<>(runs.values().stream().map(PushStore.PushedRun::sweepId).toList()));
    }

    List<String> runIds() {
      return List.copyOf(runs.keySet());
    }
  }

  /**
   * Null when {@code other} holds the same measurement as {@code file} (a result as the pushed file gives it), else
   * which fields differ. Where the coordinator got a result (its origin) is not part of it, nor the run and sweep
   * when the file names none (the coordinator filed it under its own). Numbers compare by value: a JSON file reads
   * {@code stride=4} as an int, its CSV as a long.
   */
  static String difference(KernelResult file, KernelResult other) {
    return ResultDifference.between(comparable(file, file), comparable(other, file));
  }

  private static KernelResult comparable(KernelResult r, KernelResult file) {
    KernelResult plain = r.withOrigin(null);
    if (file.runId() == null) {
      return plain.withRun(null, null);
    }
    return file.sweepId() == null ? plain.withRun(plain.runId(), null) : plain;
  }
}
