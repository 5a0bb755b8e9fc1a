package io.busload.coordinator.api;

import io.vertx.core.Future;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Answers of an expensive read kept for a short time, by the question asked: while one is being computed, every
 * request for the same question shares it (computed once, however many ask at once), and for {@code ttl} after it
 * is done it is served again as it is. A failed answer is forgotten at once. Used on the event loop only.
 *
 * <p>A dashboard drawing History asks for the same kernel case's annotations whenever a user opens it; results
 * arrive every few seconds at most per device, so an answer some seconds old shows what a user expects, at the cost
 * of one computation per question and period however many ask.
 */
final class RecentAnswers<K, V> {
  /** Questions kept at most; a crowd asking distinct questions is bounded by the pool that computes them instead. */
  static final int MAX_KEPT = 1000;

  private record Answer<V>(Future<V> value, long computedAt) {}

  private final Duration ttl;
  private final LongSupplier nanos;
  private final Map<K, Answer<V>> answers = new HashMap<>();
  private long computed;

  RecentAnswers(Duration ttl, LongSupplier nanos) {
    this.ttl = ttl;
    this.nanos = nanos;
  }

  /** The answer to {@code question}: being computed or recent enough, else a new one from {@code compute}. */
  Future<V> get(K question, Supplier<Future<V>> compute) {
    long now = nanos.getAsLong();
    Answer<V> known = answers.get(question);
    if (known != null && (!known.value().isComplete() || now - known.computedAt() < ttl.toNanos())) {
      return known.value();
    }
    if (answers.size() >= MAX_KEPT) {
      answers.values().removeIf(a -> a.value().isComplete() && now - a.computedAt() >= ttl.toNanos());
    }
    Future<V> value = compute.get();
    computed++;
    if (answers.size() < MAX_KEPT) {
      answers.put(question, new Answer<>(value, now));
      // The period counts from when the answer is ready, not from when it was asked for.
      value.onComplete(done -> {
        if (done.failed()) {
          answers.remove(question);
        } else if (answers.get(question) != null && answers.get(question).value() == value) {
          answers.put(question, new Answer<>(value, nanos.getAsLong()));
        }
      });
    }
    return value;
  }

  /**
   * Drops every kept answer, those being computed included: after a write that changes what they say (an accepted
   * change marks the annotations), the next question is answered from the store, not from before the write.
   */
  void forget() {
    answers.clear();
  }

  /** Answers computed since the start (a test counts them). */
  long computed() {
    return computed;
  }
}
