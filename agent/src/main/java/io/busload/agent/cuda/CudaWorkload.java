package io.busload.agent.cuda;

import io.busload.agent.cuda.cublas.Cublas;
import io.busload.agent.device.Workload;
import io.busload.kernels.Arg;
import io.busload.kernels.Buffer;
import io.busload.kernels.Poison;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.LongStream;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUfunction;
import jcuda.driver.JCudaDriver;

/**
 * The buffers and events of one {@link Program} on a GPU: allocate every buffer, fill inputs on the host (on all
 * cores) and upload them in chunks, poison outputs with 0xFF bytes, then run the steps on the legacy default
 * stream. Every driver call goes through {@link Cuda#check} with its arguments.
 */
final class CudaWorkload implements Workload {
  /** Host to device transfers in chunks of this many bytes (bounded pinned staging inside the driver). */
  private static final long CHUNK_BYTES = 64L << 20;

  private final Program program;
  private final List<Buffer> buffers;
  private final List<CUdeviceptr> pointers = new ArrayList<>();
  private final List<MemorySegment> host = new ArrayList<>();
  private final List<Runnable> frees = new ArrayList<>();
  private final List<Runnable> steps = new ArrayList<>();
  private final CUevent start = new CUevent();
  private final CUevent stop = new CUevent();
  /** The blocking kernel and its two flags in host memory the GPU reads (release, timed out); see timeBatch. */
  private final CUfunction block;
  private final Pointer flags = new Pointer();
  private java.nio.IntBuffer flagView;
  private final CUdeviceptr flagsOnDevice = new CUdeviceptr();
  private Pointer blockParameters;
  private int heldTimeouts;
  private final Arena arena = Arena.ofShared(); // inputs are filled on all cores

  CudaWorkload(Program program, Function<String, CUfunction> functions, Supplier<Cublas> cublas) {
    this.program = program;
    this.buffers = program.buffers();
    this.block = functions.apply(io.busload.kernels.Fatbin.BLOCK_ENTRY_POINT);
    try {
      Cuda.check(JCudaDriver.cuMemHostAlloc(flags, 2 * Integer.BYTES, jcuda.driver.JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP),
          "cuMemHostAlloc", "timing flags", "DEVICEMAP");
      frees.add(() -> JCudaDriver.cuMemFreeHost(flags));
      flagView = flags.getByteBuffer(0, 2 * Integer.BYTES).order(java.nio.ByteOrder.nativeOrder()).asIntBuffer();
      Cuda.check(JCudaDriver.cuMemHostGetDevicePointer(flagsOnDevice, flags, 0), "cuMemHostGetDevicePointer",
          "timing flags");
      blockParameters = Pointer.to(Pointer.to(flagsOnDevice), Pointer.to(flagsOnDevice.withByteOffset(Integer.BYTES)),
          Pointer.to(new long[] {io.busload.kernels.Fatbin.BLOCK_TIMEOUT_NS}));
      for (Buffer buffer : buffers) {
        CUdeviceptr pointer = new CUdeviceptr();
        Cuda.check(JCudaDriver.cuMemAlloc(pointer, buffer.bytes()), "cuMemAlloc", buffer.name(), "bytes=" + buffer.bytes());
        frees.add(() -> JCudaDriver.cuMemFree(pointer));
        pointers.add(pointer);
      }
      Cuda.check(JCudaDriver.cuEventCreate(start, CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate", "start");
      frees.add(() -> JCudaDriver.cuEventDestroy(start));
      Cuda.check(JCudaDriver.cuEventCreate(stop, CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate", "stop");
      frees.add(() -> JCudaDriver.cuEventDestroy(stop));
      for (int i = 0; i < buffers.size(); i++) {
        Buffer buffer = buffers.get(i);
        MemorySegment segment = arena.allocate(buffer.bytes(), 64);
        host.add(segment);
        switch (buffer.role()) {
          case INPUT, INOUT -> upload(i, segment);
          case OUTPUT -> Cuda.check(JCudaDriver.cuMemsetD8(pointers.get(i), Poison.BYTE, buffer.bytes()),
              "cuMemsetD8", buffer.name(), "0xFF", "count=" + buffer.bytes());
          case SCRATCH -> { }
        }
      }
      for (Step step : program.steps()) {
        steps.add(compile(step, functions, cublas));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Fills buffer {@code index} on the host, in parallel parts of whole elements, and copies it up chunk by chunk. */
  private void upload(int index, MemorySegment segment) {
    Buffer buffer = buffers.get(index);
    int size = buffer.type().bytes();
    long elements = buffer.elements();
    long parts = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors() * 4L, elements / 65536));
    LongStream.range(0, parts).parallel().forEach(p -> {
      long from = elements * p / parts;
      long to = elements * (p + 1) / parts;
      program.fill(index, from, segment.asSlice(from * size, (to - from) * size));
    });
    for (long offset = 0; offset < buffer.bytes(); offset += CHUNK_BYTES) {
      long bytes = Math.min(CHUNK_BYTES, buffer.bytes() - offset);
      Cuda.check(JCudaDriver.cuMemcpyHtoD(pointers.get(index).withByteOffset(offset),
          Pointer.to(segment.asSlice(offset, bytes).asByteBuffer()), bytes), "cuMemcpyHtoD",
          buffer.name() + "+" + offset, "bytes=" + bytes);
    }
  }

  /** Binds a step to this workload's pointers once, so a timed batch only launches. */
  private Runnable compile(Step step, Function<String, CUfunction> functions, Supplier<Cublas> cublas) {
    return switch (step) {
      case Step.Kernel k -> {
        CUfunction function = functions.apply(k.entryPoint());
        Pointer parameters = Pointer.to(k.args().stream().map(this::argument).toArray(Pointer[]::new));
        String args = k.args().toString();
        yield () -> Cuda.check(JCudaDriver.cuLaunchKernel(function, k.grid().x(), k.grid().y(), k.grid().z(),
            k.block().x(), k.block().y(), k.block().z(), k.sharedBytes(), null, parameters, null),
            "cuLaunchKernel", k.entryPoint(), "grid=" + k.grid(), "block=" + k.block(), "shared=" + k.sharedBytes(), args);
      }
      case Step.DeviceCopy c -> () -> Cuda.check(JCudaDriver.cuMemcpyDtoDAsync(pointers.get(c.dstBuffer()),
          pointers.get(c.srcBuffer()), c.bytes(), null), "cuMemcpyDtoDAsync", name(c.dstBuffer()), name(c.srcBuffer()),
          "bytes=" + c.bytes());
      case Step.Memset32 m -> () -> Cuda.check(JCudaDriver.cuMemsetD32Async(pointers.get(m.buffer()), m.value(),
          m.count(), null), "cuMemsetD32Async", name(m.buffer()), m.value(), "count=" + m.count());
      case Step.Sgemm g -> {
        Cublas library = cublas.get(); // UnavailableException with the reason when the host has none
        yield () -> library.sgemm(g.m(), g.n(), g.k(), pointers.get(g.a()), pointers.get(g.b()), pointers.get(g.c()));
      }
    };
  }

  private Pointer argument(Arg arg) {
    return switch (arg) {
      case Arg.Buf b -> Pointer.to(pointers.get(b.index()));
      case Arg.I32 i -> Pointer.to(new int[] {i.value()});
      case Arg.I64 l -> Pointer.to(new long[] {l.value()});
      case Arg.F32 f -> Pointer.to(new float[] {f.value()});
      case Arg.F64 d -> Pointer.to(new double[] {d.value()});
    };
  }

  private String name(int buffer) {
    return buffers.get(buffer).name();
  }

  /**
   * One sample. Up to {@link io.busload.kernels.Fatbin#MAX_HELD_LAUNCHES} steps are queued behind the blocking
   * kernel, which the host releases after the stop event is queued: the GPU then runs the batch back to back and
   * the events time the GPU alone, not JCuda's enqueue path (as nvbench does). A batch whose hold timed out is
   * timed again without it, and so are batches too large to hold; the batch says which (issue 12).
   */
  @Override
  public Batch time(int launches) {
    boolean hold = (long) launches * steps.size() <= io.busload.kernels.Fatbin.MAX_HELD_LAUNCHES;
    if (hold) {
      flagView.put(0, 0).put(1, 0);
      Cuda.check(JCudaDriver.cuLaunchKernel(block, 1, 1, 1, 1, 1, 1, 0, null, blockParameters, null),
          "cuLaunchKernel", io.busload.kernels.Fatbin.BLOCK_ENTRY_POINT);
    }
    enqueueBatch(launches);
    if (hold) {
      flagView.put(0, 1);
    }
    // Errors of the launches themselves (illegal address, ...) surface here.
    Cuda.check(JCudaDriver.cuEventSynchronize(stop), "cuEventSynchronize", "after " + launches + " launches");
    if (hold && flagView.get(1) != 0) {
      if (heldTimeouts++ == 0) {
        org.slf4j.LoggerFactory.getLogger(CudaWorkload.class).warn("{}: the host took over {} ms to queue {} launches;"
            + " such batches are timed again without the blocking kernel", program,
            io.busload.kernels.Fatbin.BLOCK_TIMEOUT_NS / 1_000_000, launches);
      }
      return new Batch(timeBatchUnheld(launches), Hold.RETIMED);
    }
    return new Batch(elapsedSeconds(), hold ? Hold.HELD : Hold.UNHELD);
  }

  private double timeBatchUnheld(int launches) {
    enqueueBatch(launches);
    Cuda.check(JCudaDriver.cuEventSynchronize(stop), "cuEventSynchronize", "after " + launches + " launches");
    return elapsedSeconds();
  }

  /** Start event, the batch, stop event: the sample as the GPU will run it. */
  private void enqueueBatch(int launches) {
    Cuda.check(JCudaDriver.cuEventRecord(start, null), "cuEventRecord", "start");
    for (int i = 0; i < launches; i++) {
      for (Runnable step : steps) {
        step.run();
      }
    }
    Cuda.check(JCudaDriver.cuEventRecord(stop, null), "cuEventRecord", "stop");
  }

  private double elapsedSeconds() {
    float[] milliseconds = new float[1];
    Cuda.check(JCudaDriver.cuEventElapsedTime(milliseconds, start, stop), "cuEventElapsedTime");
    return milliseconds[0] / 1e3;
  }

  @Override
  public List<MemorySegment> download() {
    Cuda.check(JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize", "before reading the buffers back");
    for (int i = 0; i < buffers.size(); i++) {
      Buffer buffer = buffers.get(i);
      if (buffer.role() == Buffer.Role.INPUT) {
        continue; // the host copy is what was uploaded
      }
      for (long offset = 0; offset < buffer.bytes(); offset += CHUNK_BYTES) {
        long bytes = Math.min(CHUNK_BYTES, buffer.bytes() - offset);
        Cuda.check(JCudaDriver.cuMemcpyDtoH(Pointer.to(host.get(i).asSlice(offset, bytes).asByteBuffer()),
            pointers.get(i).withByteOffset(offset), bytes), "cuMemcpyDtoH", buffer.name() + "+" + offset, "bytes=" + bytes);
      }
    }
    return List.copyOf(host);
  }

  @Override
  public void close() {
    for (int i = frees.size() - 1; i >= 0; i--) {
      frees.get(i).run();
    }
    frees.clear();
    if (arena.scope().isAlive()) {
      arena.close();
    }
  }
}
