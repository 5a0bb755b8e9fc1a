package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Fixtures;
import io.busload.protocol.KernelResult;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Opening the database (embedded or a server) and the rule that no store call runs on an event loop. */
class DatabaseTest {
  @TempDir Path dir;
  @RegisterExtension final OpenDatabase database = new OpenDatabase();

  @Test
  void anyCall_onEventLoop_isRefused() throws Exception {
    ResultStore store = new ResultStore(database.db());
    Vertx vertx = Vertx.vertx();
    try {
      Throwable failure = vertx.getOrCreateContext().<Long>executeBlocking(() -> 0L)
          .compose(v -> {
            try {
              store.resultCount();
              return io.vertx.core.Future.<Throwable>succeededFuture(null);
            } catch (IllegalStateException e) {
              return io.vertx.core.Future.succeededFuture(e);
            }
          }).await(10, TimeUnit.SECONDS);
      assertThat(failure).isInstanceOf(IllegalStateException.class).hasMessageContaining("event-loop");
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void open_embeddedTwiceOnSameDataDir_startsPostgresqlAndKeepsRows() {
    Path data = dir.resolve("embedded");
    KernelResult result = Fixtures.result("s1", "r1", "a1", Fixtures.gpu("h1", 0), 2, true, Instant.now());
    try (Database embedded = Database.open(data)) {
      new ResultStore(embedded).insertResult(result, Instant.now());
    }

    try (Database again = Database.open(data)) {
      ResultStore results = new ResultStore(again);
      assertThat(results.resultCount()).isEqualTo(1);
      assertThat(results.samples(result.id())).isEqualTo(result.samples());
    }
  }
}
