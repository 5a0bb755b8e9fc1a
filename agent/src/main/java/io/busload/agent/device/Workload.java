package io.busload.agent.device;

import java.lang.foreign.MemorySegment;
import java.util.List;

/** One program with its buffers on a device: run its steps, time them, read every buffer back, free it. */
public interface Workload extends AutoCloseable {
  /** Runs the program's steps {@code launches} times back to back; the seconds they took together, device-timed. */
  double timeBatch(int launches);

  /** Host copies of every buffer, in program order: inputs as filled, outputs and scratch as the device left them. */
  List<MemorySegment> download();

  /** Frees every buffer and event. */
  @Override
  void close();
}
