package io.busload.coordinator.fleet;

import io.busload.coordinator.store.AgentStore;
import io.busload.coordinator.store.Run;
import io.busload.coordinator.store.SweepStore;
import io.busload.protocol.KernelResult;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Whether each result an agent sends is its own to send: for a device no other agent owns, and for a run and sweep
 * the coordinator gave that agent on that device. What the store has decides it, read once per batch (three
 * indexed lookups, whatever the batch's size), so a result is judged the same after a restart or a takeover.
 *
 * <p>A result may name a run or sweep the store does not know, or a device no agent has claimed: it speaks for
 * nothing of another agent's, and stays the sender's own. Pushed results ({@code ./busload push}) do not come here:
 * they name no agent's run, and a push token, not a certificate, vouches for them.
 */
final class ResultOwnership {
  /** Why one result was refused: the reason counted and the agent's name it is logged with. */
  record Refused(String agentId, Refusals.Trespass reason, String detail) {}

  private final AgentStore agents;
  private final SweepStore sweeps;

  ResultOwnership(AgentStore agents, SweepStore sweeps) {
    this.agents = agents;
    this.sweeps = sweeps;
  }

  /** The results of {@code batch} that are not their agent's to send, by id. Blocking: call it off the event loop. */
  Map<UUID, Refused> refused(List<KernelResult> batch) {
    Set<String> deviceIds = new HashSet<>();
    Set<String> runIds = new HashSet<>();
    Set<String> sweepIds = new HashSet<>();
    for (KernelResult r : batch) {
      deviceIds.add(r.device().id());
      if (r.runId() != null) {
        runIds.add(r.runId());
      }
      if (r.sweepId() != null) {
        sweepIds.add(r.sweepId());
      }
    }
    Map<String, String> owners = agents.owners(deviceIds);
    Map<String, Run> runs = sweeps.runs(runIds);
    Set<String> knownSweeps = sweeps.existingSweeps(sweepIds);
    Map<UUID, Refused> refused = new LinkedHashMap<>();
    for (KernelResult r : batch) {
      String why = null;
      Refusals.Trespass reason = null;
      String deviceId = r.device().id();
      String owner = owners.get(deviceId);
      Run run = r.runId() == null ? null : runs.get(r.runId());
      if (owner != null && !owner.equals(r.agentId())) {
        reason = Refusals.Trespass.RESULT_DEVICE;
        why = "device " + deviceId + " belongs to another agent";
      } else if (run != null && !SweepStore.assignedTo(run, r.agentId(), deviceId)) {
        reason = Refusals.Trespass.RESULT_RUN;
        why = "run " + r.runId() + " is not assigned to agent " + r.agentId() + " on device " + deviceId;
      } else if (run != null && r.sweepId() != null && !r.sweepId().equals(run.sweepId())) {
        reason = Refusals.Trespass.RESULT_SWEEP;
        why = "run " + r.runId() + " is not part of sweep " + r.sweepId();
      } else if (run == null && r.sweepId() != null && knownSweeps.contains(r.sweepId())) {
        reason = Refusals.Trespass.RESULT_SWEEP;
        why = r.runId() == null ? "a result in sweep " + r.sweepId() + " must name its run"
            : "sweep " + r.sweepId() + " has no run " + r.runId();
      }
      if (reason != null) {
        refused.put(r.id(), new Refused(r.agentId(), reason, "result " + r.id() + ": " + why));
      }
    }
    return refused;
  }
}
