package io.busload.simulator.fleet;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the virtual agents did, counted where it happened: the run requests they took (and when), the results they
 * measured, and the acks they got. The run's checks compare this with what the coordinator stored.
 */
final class Tally {
  /** Results measured, by sweep: each id is what the store must hold exactly once. */
  final ConcurrentHashMap<String, Set<UUID>> made = new ConcurrentHashMap<>();
  /** Run requests taken, by sweep (a repeated request for the same run counts once). */
  final ConcurrentHashMap<String, Set<String>> runsTaken = new ConcurrentHashMap<>();
  /** When the last run request of each sweep arrived ({@link System#nanoTime}). */
  final ConcurrentHashMap<String, Long> lastRequestAt = new ConcurrentHashMap<>();
  /** Results acked (so committed), by sweep. */
  final ConcurrentHashMap<String, Set<UUID>> acked = new ConcurrentHashMap<>();
  final AtomicLong repeatedRequests = new AtomicLong();
  final AtomicLong helloAcks = new AtomicLong();
  final AtomicLong heartbeats = new AtomicLong();

  void runTaken(String sweepId, String runId) {
    runsTaken.computeIfAbsent(sweepId, s -> ConcurrentHashMap.newKeySet()).add(runId);
    lastRequestAt.merge(sweepId, System.nanoTime(), Math::max);
  }

  void made(String sweepId, UUID id) {
    made.computeIfAbsent(sweepId, s -> ConcurrentHashMap.newKeySet()).add(id);
  }

  /** Per sweep, each acked result's nanoseconds from its first send to its ack (the ack follows the commit). */
  final ConcurrentHashMap<String, java.util.Queue<Long>> ackNanos = new ConcurrentHashMap<>();

  void acked(String sweepId, UUID id) {
    acked.computeIfAbsent(sweepId, s -> ConcurrentHashMap.newKeySet()).add(id);
  }

  void acked(String sweepId, UUID id, long nanosSinceSent) {
    if (acked.computeIfAbsent(sweepId, s -> ConcurrentHashMap.newKeySet()).add(id)) {
      ackNanos.computeIfAbsent(sweepId, s -> new java.util.concurrent.ConcurrentLinkedQueue<>()).add(nanosSinceSent);
    }
  }

  boolean allAcked(String sweepId) {
    return acked.getOrDefault(sweepId, Set.of()).containsAll(made(sweepId));
  }

  Set<UUID> made(String sweepId) {
    return made.getOrDefault(sweepId, Set.of());
  }

  int runsTaken(String sweepId) {
    return runsTaken.getOrDefault(sweepId, Set.of()).size();
  }
}
