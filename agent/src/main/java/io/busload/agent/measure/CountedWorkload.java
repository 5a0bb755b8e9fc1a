package io.busload.agent.measure;

import io.busload.agent.device.Workload;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A workload that counts its launches, so the output can be checked again after the timed ones with the number
 * a program that updates in place needs ({@link io.busload.kernels.Program#checkAfter}).
 */
final class CountedWorkload implements Workload {
  private final Workload workload;
  private long launches;

  CountedWorkload(Workload workload) {
    this.workload = workload;
  }

  /** Launches so far, every batch included. */
  long launches() {
    return launches;
  }

  @Override
  public Batch time(int count) {
    Batch batch = workload.time(count);
    launches += count;
    return batch;
  }

  @Override
  public int heldLaunchLimit() {
    return workload.heldLaunchLimit();
  }

  @Override
  public List<MemorySegment> download() {
    return workload.download();
  }

  @Override
  public java.util.Optional<List<MemorySegment>> downloadApart() {
    return workload.downloadApart();
  }

  @Override
  public void close() {
    workload.close();
  }
}
