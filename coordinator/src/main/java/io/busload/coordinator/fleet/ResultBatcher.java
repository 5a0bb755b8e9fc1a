package io.busload.coordinator.fleet;

import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.ResultStore;
import io.busload.coordinator.store.SweepStore;
import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.KernelResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Groups results arriving within a short window into one transaction and acks each after its batch commits
 * (20,000 results/s into PostgreSQL; one transaction per result managed about a tenth of that).
 *
 * <p>A batch closes at {@link #MAX_BATCH} results or {@link #WINDOW_MILLIS} after its first result, whichever
 * comes first; at most {@link #MAX_IN_FLIGHT} batches are committing at once, and results queue meanwhile, so
 * a busy database makes batches bigger instead of making the pool thrash. Confined to the verticle's event loop.
 *
 * <p>At most {@code maxPending} results wait; one more is answered {@link #BUSY} at once, not queued: the agent keeps
 * it in its outbox and sends it again after its backoff, so a database that falls behind costs the coordinator a
 * bounded amount of memory and the fleet no result. The batches commit on the ingest pool, apart from the
 * analysis reads.
 */
public final class ResultBatcher {
  private static final Logger LOG = LoggerFactory.getLogger(ResultBatcher.class);
  static final int MAX_BATCH = 1000;
  static final long WINDOW_MILLIS = 5;
  static final int MAX_IN_FLIGHT = 2;
  /** Reply failure code for "not now": like a store failure, the agent keeps the result and retries after a backoff. */
  public static final int BUSY = 503;
  private static final DeliveryOptions LIVE = new DeliveryOptions().setCodecName(ReceivedResult.Codec.NAME);

  private final Vertx vertx;
  private final WorkerExecutor ingest;
  private final int maxPending;
  private final java.util.concurrent.atomic.AtomicLong busy = new java.util.concurrent.atomic.AtomicLong();
  private final ResultStore store;
  private final Clock clock;
  private final Consumer<List<KernelResult>> onStored;
  private final ResultOwnership ownership;
  private final Refusals refusals;
  private final MeasuredAtWindow window;
  private final io.busload.coordinator.logging.LogEvery conflictsLogged =
      new io.busload.coordinator.logging.LogEvery(java.time.Duration.ofSeconds(10));
  private List<Entry> pending = new ArrayList<>();
  private long timer = -1;
  private int inFlight;

  /**
   * {@code onStored} gets the results that were new, after their acks went out; {@code ingest} runs the commits;
   * {@code maxPending} results wait at most. Each agent's result is stored only where it is the agent's own
   * ({@link ResultOwnership}); the rest are refused and counted in {@code refusals}. Results are taken only with a
   * measuredAt inside {@code window} ({@link #outsideWindow}).
   */
  public ResultBatcher(Vertx vertx, WorkerExecutor ingest, int maxPending, ResultStore store, AgentStore agents,
      SweepStore sweeps, Refusals refusals, Clock clock, MeasuredAtWindow window,
      Consumer<List<KernelResult>> onStored) {
    if (maxPending < 1) {
      throw new IllegalArgumentException("maxPending: at least 1, got " + maxPending);
    }
    this.vertx = vertx;
    this.ingest = ingest;
    this.maxPending = maxPending;
    this.store = store;
    this.clock = clock;
    this.window = window;
    this.onStored = onStored;
    this.ownership = new ResultOwnership(agents, sweeps);
    this.refusals = refusals;
  }

  /**
   * Null when {@code result}'s measuredAt is inside the window around the coordinator's clock now, else the refusal
   * naming how far off it is. Checked before a result is stored, whichever way it came, so that the store makes
   * month partitions only inside the window.
   */
  public String outsideWindow(KernelResult result) {
    return window.problem(result.measuredAt(), clock.instant());
  }

  /** Null when an agent whose clock is {@code offset} from ours may have its results taken, else the refusal. */
  public String clockProblem(String agentId, java.time.Duration offset) {
    return window.clockProblem(agentId, offset);
  }

  /**
   * What a batch did: ids stored for the first time, results that could not be stored with why (by id), results
   * refused for naming what is not their agent's (by id), and results whose id is stored with other contents, by
   * their place in the batch, with which fields differ.
   */
  record Outcome(Set<UUID> fresh, Map<UUID, String> failed, Map<UUID, ResultOwnership.Refused> refused,
      Map<Integer, String> conflicts) {}

  /** A result waiting for its batch: the message to ack, the checked record and the JSON it came as (or null). */
  private record Entry(Message<?> message, KernelResult result, byte[] json) {}

  /**
   * One transaction for the batch; if it fails, each result alone: a result the checks let through
   * but the database refuses fails only itself, and the good ones beside it are acked. When the database
   * itself is down every single insert fails too, and every sender retries.
   */
  private Outcome store(List<ResultStore.Incoming> incoming) {
    Map<UUID, ResultOwnership.Refused> refused = ownership.refused(incoming.stream().map(ResultStore.Incoming::result)
        .toList());
    List<ResultStore.Incoming> results = new ArrayList<>(incoming.size());
    List<Integer> places = new ArrayList<>(incoming.size());
    for (int i = 0; i < incoming.size(); i++) {
      if (!refused.containsKey(incoming.get(i).result().id())) {
        results.add(incoming.get(i));
        places.add(i);
      }
    }
    if (results.isEmpty()) {
      return new Outcome(Set.of(), Map.of(), refused, Map.of());
    }
    try {
      ResultStore.Outcome stored = store.storeIncoming(results, clock.instant());
      return new Outcome(stored.fresh(), Map.of(), refused, batchPlaces(stored.conflicts(), places));
    } catch (RuntimeException batchFailure) {
      if (results.size() == 1) {
        throw batchFailure;
      }
      LOG.warn("batch of {} result(s) failed ({}); storing them one by one", results.size(),
          batchFailure.getMessage());
      Set<UUID> fresh = new java.util.HashSet<>();
      Map<UUID, String> failed = new java.util.HashMap<>();
      Map<Integer, String> conflicts = new java.util.HashMap<>();
      for (int i = 0; i < results.size(); i++) {
        ResultStore.Incoming r = results.get(i);
        try {
          ResultStore.Outcome one = store.storeIncoming(List.of(r), clock.instant());
          fresh.addAll(one.fresh());
          String conflict = one.conflicts().get(0);
          if (conflict != null) {
            conflicts.put(i, conflict);
          }
        } catch (RuntimeException e) {
          LOG.error("cannot store result {}", r.result().id(), e);
          failed.put(r.result().id(), String.valueOf(e.getMessage()));
        }
      }
      return new Outcome(fresh, failed, refused, batchPlaces(conflicts, places));
    }
  }

  /** Conflicts found by place among the results stored, by their place in the whole batch instead. */
  private static Map<Integer, String> batchPlaces(Map<Integer, String> conflicts, List<Integer> places) {
    if (conflicts.isEmpty()) {
      return Map.of();
    }
    Map<Integer, String> inBatch = new java.util.HashMap<>();
    conflicts.forEach((place, why) -> inBatch.put(places.get(place), why));
    return inBatch;
  }

  /**
   * Queues a checked result for the next batch; {@code message} gets its ack after the commit. {@code json} is the
   * JSON to store for it, or null to have the store encode the record.
   */
  public void add(Message<?> message, KernelResult result, byte[] json) {
    if (pending.size() >= maxPending) {
      if (busy.getAndIncrement() % 1000 == 0) {
        LOG.warn("{} result(s) wait for the store: result {} answered busy (its agent retries; {} so far)",
            pending.size(), result.id(), busy.get());
      }
      message.fail(BUSY, "coordinator busy: " + pending.size() + " results wait to be stored; retry later");
      return;
    }
    pending.add(new Entry(message, result, json));
    if (pending.size() >= MAX_BATCH) {
      flush();
    } else if (timer < 0) {
      timer = vertx.setTimer(WINDOW_MILLIS, id -> {
        timer = -1;
        flush();
      });
    }
  }

  /** Results waiting for a batch now. */
  public int pending() {
    return pending.size();
  }

  /** Results answered {@link #BUSY} since the start. */
  public long refusedBusy() {
    return busy.get();
  }

  /**
   * After the commit that stored them: publishes the results stored now ({@code fresh}) on the live address, in the
   * order given, and hands them to the regression checks and the ingest counter. Results from agents and from pushes
   * alike; a result that was stored already is neither published nor checked again (a redelivered result
   * was published when it was first stored; dashboards would count it twice).
   */
  public void announce(List<ResultStore.Incoming> inOrder, Set<UUID> fresh) {
    Set<UUID> left = new java.util.HashSet<>(fresh);
    List<KernelResult> newOnes = new ArrayList<>(fresh.size());
    for (ResultStore.Incoming e : inOrder) {
      KernelResult r = e.result();
      if (left.remove(r.id())) {
        newOnes.add(r);
        if (e.json() == null) {
          vertx.eventBus().publish(Addresses.LIVE_RESULTS, r);
        } else {
          // The JSON as it came and was stored: dashboards read the same bytes, not a second encoding.
          vertx.eventBus().publish(Addresses.LIVE_RESULTS, new ReceivedResult(r, e.json()), LIVE);
        }
      }
    }
    if (!newOnes.isEmpty()) {
      onStored.accept(newOnes);
    }
  }

  private void flush() {
    if (pending.isEmpty() || inFlight >= MAX_IN_FLIGHT) {
      return;
    }
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
    List<Entry> batch = pending.size() <= MAX_BATCH ? pending
        : new ArrayList<>(pending.subList(0, MAX_BATCH));
    pending = pending.size() <= MAX_BATCH ? new ArrayList<>() : new ArrayList<>(pending.subList(MAX_BATCH, pending.size()));
    inFlight++;
    List<ResultStore.Incoming> results = new ArrayList<>(batch.size());
    for (Entry e : batch) {
      results.add(new ResultStore.Incoming(e.result(), e.json()));
    }
    Future<Outcome> stored = ingest.executeBlocking(() -> store(results), false);
    stored.onComplete(done -> {
      inFlight--;
      if (done.failed()) {
        LOG.error("cannot store {} result(s)", batch.size(), done.cause());
        for (Entry e : batch) {
          e.message().fail(Intake.STORE_FAILED, "coordinator store failed: " + done.cause().getMessage());
        }
      } else {
        Set<UUID> fresh = done.result().fresh();
        Map<UUID, String> failed = done.result().failed();
        Map<UUID, ResultOwnership.Refused> refused = done.result().refused();
        Map<Integer, String> conflicts = done.result().conflicts();
        for (int i = 0; i < batch.size(); i++) {
          Entry e = batch.get(i);
          String failure = failed.isEmpty() ? null : failed.get(e.result().id());
          ResultOwnership.Refused notOwn = refused.isEmpty() ? null : refused.get(e.result().id());
          String conflict = conflicts.isEmpty() ? null : conflicts.get(i);
          if (notOwn != null) {
            refusals.trespass(notOwn.agentId(), notOwn.reason(), notOwn.detail());
            if (e.message().replyAddress() != null) {
              e.message().reply(Ack.refused(e.result().id().toString(), notOwn.detail()));
            }
          } else if (conflict != null) {
            // A refusal, not a failure: the same result sent again gets the same answer, and the agent keeps it.
            String reason = "id: result " + e.result().id() + " is stored already with other contents (" + conflict
                + ")";
            conflictsLogged.count("conflict", n -> LOG.warn("refused {} result(s) under a taken id, latest: {}", n,
                reason));
            e.message().reply(Ack.refused(e.result().id().toString(), reason));
          } else if (failure == null) {
            e.message().reply(Ack.ok(e.result().id().toString()));
          } else {
            e.message().fail(Intake.STORE_FAILED, "coordinator store failed: " + failure);
          }
        }
        announce(results, fresh);
      }
      if (!pending.isEmpty() && (pending.size() >= MAX_BATCH || timer < 0)) {
        flush();
      }
    });
  }
}
