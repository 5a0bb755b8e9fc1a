package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The annotations' cache and the analysis pool's bound, on a real Vert.x. */
class RecentAnswersTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void get_manyAskTheSameQuestionWhileItIsComputed_computedOnceAndAllGetIt() throws Exception {
    AtomicLong now = new AtomicLong();
    RecentAnswers<String, String> answers = new RecentAnswers<>(Duration.ofSeconds(10), now::get);
    Promise<String> slow = Promise.promise();
    AtomicInteger computed = new AtomicInteger();
    List<Future<String>> asked = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      asked.add(answers.get("stride|stride=4", () -> {
        computed.incrementAndGet();
        return slow.future();
      }));
    }
    slow.complete("annotations");

    assertThat(computed).hasValue(1);
    assertThat(Future.all(asked).await(5, TimeUnit.SECONDS).<String>list()).containsOnly("annotations");
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    answers.get("stride|stride=4", () -> {
      computed.incrementAndGet();
      return Future.succeededFuture("newer");
    });
    assertThat(computed).as("within the TTL of the answer").hasValue(1);
    now.addAndGet(Duration.ofSeconds(2).toNanos());
    assertThat(answers.get("stride|stride=4", () -> {
      computed.incrementAndGet();
      return Future.succeededFuture("newer");
    }).await(5, TimeUnit.SECONDS)).isEqualTo("newer");
    assertThat(computed).as("after the TTL").hasValue(2);
  }

  @Test
  void get_anotherQuestionOrAFailedAnswer_computedAgain() throws Exception {
    RecentAnswers<String, String> answers = new RecentAnswers<>(Duration.ofSeconds(10), () -> 0);
    AtomicInteger computed = new AtomicInteger();
    answers.get("a", () -> {
      computed.incrementAndGet();
      return Future.failedFuture(new IllegalStateException("store down"));
    });
    answers.get("a", () -> {
      computed.incrementAndGet();
      return Future.succeededFuture("a");
    });
    answers.get("b", () -> {
      computed.incrementAndGet();
      return Future.succeededFuture("b");
    });

    assertThat(computed).hasValue(3);
  }

  @Test
  void get_afterForget_computedAgainWithinTheTtl() {
    RecentAnswers<String, String> answers = new RecentAnswers<>(Duration.ofSeconds(10), () -> 0);
    AtomicInteger computed = new AtomicInteger();
    answers.get("a", () -> Future.succeededFuture("before the mark " + computed.incrementAndGet()));
    answers.get("a", () -> Future.succeededFuture("before the mark " + computed.incrementAndGet()));
    answers.forget();
    String after = answers.get("a", () -> Future.succeededFuture("after the mark " + computed.incrementAndGet()))
        .result();

    assertThat(after).isEqualTo("after the mark 2");
    assertThat(computed).hasValue(2);
  }

  @Test
  void run_poolAndQueueFull_refusedAt503WithRetryAfter() throws Exception {
    WorkerExecutor workers = vertx.createSharedWorkerExecutor("test-analysis", 1);
    AnalysisPool pool = new AnalysisPool(workers, 2, Duration.ofSeconds(7));
    CountDownLatch release = new CountDownLatch(1);
    Future<Integer> running = pool.run(() -> {
      release.await();
      return 1;
    });
    Future<Integer> queued = pool.run(() -> 2);

    Future<Integer> third = pool.run(() -> 3);

    assertThat(third.failed()).isTrue();
    assertThat(third.cause()).isInstanceOf(Busy.class);
    assertThat(((Busy) third.cause()).status()).isEqualTo(503);
    assertThat(((Busy) third.cause()).retryAfterSeconds()).isEqualTo(7);
    release.countDown();
    assertThat(running.await(5, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(queued.await(5, TimeUnit.SECONDS)).isEqualTo(2);
    io.busload.testsupport.Await.until(() -> pool.inside() == 0, Duration.ofSeconds(5), "places given back");
    assertThat(pool.run(() -> 4).await(5, TimeUnit.SECONDS)).isEqualTo(4);
  }
}
