package io.busload.coordinator.fleet;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.busload.protocol.DeviceInfo;

/**
 * A device with what it runs now: the {@link DeviceInfo} fields flattened beside its fingerprint and
 * activity, as the contract lists them; {@code runId} is null when the device is idle.
 */
public record DeviceView(
    @JsonUnwrapped DeviceInfo info, String fingerprint, String runId, String kernel, int completed, int total) {

  static DeviceView of(DeviceInfo info, Activity activity) {
    return new DeviceView(info, info.fingerprint(), activity.runId(), activity.kernel(), activity.completed(),
        activity.total());
  }

  /** What a device is doing, from the latest heartbeat or run status, whichever came last. */
  record Activity(String runId, String kernel, int completed, int total) {
    static final Activity IDLE = new Activity(null, null, 0, 0);
  }
}
