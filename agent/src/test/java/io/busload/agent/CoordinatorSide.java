package io.busload.agent;

import io.busload.protocol.Ack;
import io.busload.protocol.Addresses;
import io.busload.protocol.KernelResult;
import io.busload.protocol.RunStatus;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The coordinator's side of the event bus as the agent tests stand in for it: acking and recording what comes. */
final class CoordinatorSide {
  private CoordinatorSide() {}

  /** Records and acks every run status on {@code coordinator}; {@code ended} counts down as each run ends. */
  static void recordStatuses(Vertx coordinator, List<RunStatus> statuses, CountDownLatch ended) throws Exception {
    coordinator.eventBus().<RunStatus>consumer(Addresses.RUN_STATUS, m -> {
      statuses.add(m.body());
      m.reply(Ack.ok(m.body().runId()));
      if (m.body().state() == RunStatus.State.DONE || m.body().state() == RunStatus.State.FAILED) {
        ended.countDown();
      }
    }).completion().await(10, TimeUnit.SECONDS);
  }

  /** Acks a delivered result, keeping it once: a redelivery of the same id is acked again, not kept twice. */
  static void keepOnce(Message<KernelResult> m, List<KernelResult> results) {
    if (results.stream().noneMatch(r -> r.id().equals(m.body().id()))) {
      results.add(m.body());
    }
    m.reply(Ack.ok(m.body().id().toString()));
  }
}
