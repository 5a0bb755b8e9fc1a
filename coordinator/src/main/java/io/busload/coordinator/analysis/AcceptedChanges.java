package io.busload.coordinator.analysis;

import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.VerdictStore;
import io.busload.coordinator.store.VerdictStore.AcceptedChange;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Operators' marks that restart a series' baseline (a new driver, a replaced card): stored, then published on
 * {@link RegressionWatch#ACCEPTED_CHANGES} so every coordinator's regression watch restarts the series it covers.
 */
public record AcceptedChanges(EventBus bus, AgentStore agents, VerdictStore verdicts, Clock clock) {

  /**
   * Stores and announces a mark on {@code device} ({@code kernel}, {@code params} null: all of them) from
   * {@code from} (null: now). Blocking: store reads and a write.
   *
   * @throws UnknownId with role {@code device} when the fleet never knew the device (nothing is stored)
   */
  public AcceptedChange accept(String device, String kernel, String params, Instant from, String acceptedBy,
      String why) {
    Instant now = clock.instant();
    AcceptedChange mark = new AcceptedChange(UUID.randomUUID(), device, kernel, params, from == null ? now : from,
        acceptedBy, why, now);
    if (agents.devices().stream().noneMatch(d -> d.id().equals(device))) {
      throw new UnknownId("device", "unknown device '" + device + "'");
    }
    verdicts.insertAccepted(mark);
    bus.publish(RegressionWatch.ACCEPTED_CHANGES, new JsonObject().put("device", device).put("kernel", kernel)
        .put("params", params));
    return mark;
  }

  /** The newest {@code limit} marks matching the filters (null: any). Blocking: a store read. */
  public List<AcceptedChange> list(String device, String kernel, String params, int limit) {
    return verdicts.accepted(device, kernel, params, limit);
  }
}
