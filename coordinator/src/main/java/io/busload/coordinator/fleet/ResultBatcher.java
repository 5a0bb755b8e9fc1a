package io.busload.coordinator.fleet;

import io.busload.coordinator.store.ResultStore;
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
 * (issue 4: 20,000 results/s into PostgreSQL; one transaction per result managed about a tenth of that).
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
  private List<Entry> pending = new ArrayList<>();
  private long timer = -1;
  private int inFlight;

  /**
   * {@code onStored} gets the results that were new, after their acks went out; {@code ingest} runs the commits;
   * {@code maxPending} results wait at most.
   */
  public ResultBatcher(Vertx vertx, WorkerExecutor ingest, int maxPending, ResultStore store, Clock clock,
      Consumer<List<KernelResult>> onStored) {
    if (maxPending < 1) {
      throw new IllegalArgumentException("maxPending: at least 1, got " + maxPending);
    }
    this.vertx = vertx;
    this.ingest = ingest;
    this.maxPending = maxPending;
    this.store = store;
    this.clock = clock;
    this.onStored = onStored;
  }

  /** What a batch did: ids stored for the first time, and results that could not be stored, with why. */
  record Outcome(Set<UUID> fresh, Map<UUID, String> failed) {}

  /** A result waiting for its batch: the message to ack, the checked record and the JSON it came as (or null). */
  private record Entry(Message<?> message, KernelResult result, byte[] json) {}

  /**
   * One transaction for the batch; if it fails, each result alone (issue 6): a result the checks let through
   * but the database refuses fails only itself, and the good ones beside it are acked. When the database
   * itself is down every single insert fails too, and every sender retries.
   */
  private Outcome store(List<ResultStore.Incoming> results) {
    try {
      return new Outcome(store.insertIncoming(results, clock.instant()), Map.of());
    } catch (RuntimeException batchFailure) {
      if (results.size() == 1) {
        throw batchFailure;
      }
      LOG.warn("batch of {} result(s) failed ({}); storing them one by one", results.size(),
          batchFailure.getMessage());
      Set<UUID> fresh = new java.util.HashSet<>();
      Map<UUID, String> failed = new java.util.HashMap<>();
      for (ResultStore.Incoming r : results) {
        try {
          fresh.addAll(store.insertIncoming(List.of(r), clock.instant()));
        } catch (RuntimeException e) {
          LOG.error("cannot store result {}", r.result().id(), e);
          failed.put(r.result().id(), String.valueOf(e.getMessage()));
        }
      }
      return new Outcome(fresh, failed);
    }
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
   * (issue 11) alike; a result that was stored already is neither published nor checked again (a redelivered result
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
        for (Entry e : batch) {
          String failure = failed.isEmpty() ? null : failed.get(e.result().id());
          if (failure == null) {
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
