package io.busload.agent.cuda;

import io.busload.agent.cuda.cublas.Cublas;
import io.busload.agent.device.Workload;
import io.busload.kernels.Arg;
import io.busload.kernels.Buffer;
import io.busload.kernels.DeviceFill;
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
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * The buffers and events of one {@link Program} on a GPU: allocate every buffer, fill inputs on the host (on all
 * cores) and upload them in chunks, poison outputs with 0xFF bytes, then run the steps on the legacy default
 * stream. Every driver call goes through {@link Cuda#check} with its arguments.
 */
final class CudaWorkload implements Workload {
  /** Host to device transfers in chunks of this many bytes (bounded pinned staging inside the driver). */
  private static final long CHUNK_BYTES = 64L << 20;
  /** Blocks of 256 threads that fill an input on the device, each thread a word at a time across the buffer. */
  private static final int FILL_BLOCKS = 4096;
  /** Elements of a device-filled input compared with the host's generator. */
  private static final int FILL_SAMPLES = 256;

  private final Program program;
  private final List<Buffer> buffers;
  /** Each buffer's device address: device and peer memory, mapped host memory; null for other host memory. */
  private final List<CUdeviceptr> pointers = new ArrayList<>();
  /** Each buffer's host memory: the buffer itself where it lives on the host, else its host copy. */
  private final List<MemorySegment> host = new ArrayList<>();
  /** Each host buffer's address for the copy engines ({@link Buffer.Memory#onHost()}); null for device memory. */
  private final List<Pointer> hostPointers = new ArrayList<>();
  /** The second host copies of {@link #downloadApart}, taken on its first call; null before. */
  private List<MemorySegment> apart;
  /** The other GPU of a pair; null when the program has no peer buffers. */
  private final PeerContext peer;
  /**
   * Whether a batch may be queued behind the blocking kernel. Not with pageable memory: the driver stages such a
   * copy through the host, and returns from a device-to-host copy only once it is done, so the host would wait
   * on a stream that waits on the host.
   */
  private final boolean holdable;
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
  /** The host copies of device buffers, kept by the device from case to case. */
  private final HostStaging staging;

  CudaWorkload(Program program, Function<String, CUfunction> functions, Supplier<Cublas> cublas,
      Function<Integer, PeerContext> peers, HostStaging staging) {
    this.program = program;
    this.staging = staging;
    this.buffers = program.buffers();
    this.block = functions.apply(io.busload.kernels.Fatbin.BLOCK_ENTRY_POINT);
    this.holdable = buffers.stream().noneMatch(b -> b.memory() == Buffer.Memory.PAGEABLE);
    boolean needsPeer = buffers.stream().anyMatch(b -> b.memory() == Buffer.Memory.PEER);
    this.peer = needsPeer ? peers.apply(program.peerDevice()) : null;
    if (peer != null) {
      frees.add(peer::close);
    }
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
        allocate(buffer);
      }
      Cuda.check(JCudaDriver.cuEventCreate(start, CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate", "start");
      frees.add(() -> JCudaDriver.cuEventDestroy(start));
      Cuda.check(JCudaDriver.cuEventCreate(stop, CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate", "stop");
      frees.add(() -> JCudaDriver.cuEventDestroy(stop));
      for (int i = 0; i < buffers.size(); i++) {
        Buffer buffer = buffers.get(i);
        MemorySegment segment = host.get(i);
        int index = i;
        switch (buffer.role()) {
          case INPUT, INOUT -> upload(i, segment, functions);
          case OUTPUT -> {
            if (buffer.memory().onHost()) {
              segment.fill(Poison.BYTE);
            } else {
              onOwner(buffer, () -> Cuda.check(JCudaDriver.cuMemsetD8(pointers.get(index), Poison.BYTE,
                  buffer.bytes()), "cuMemsetD8", buffer.name(), "0xFF", "count=" + buffer.bytes()));
            }
          }
          case SCRATCH -> { }
        }
      }
      for (Step step : program.steps()) {
        steps.add(compile(step, functions, cublas, null));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Allocates one buffer where its {@link Buffer.Memory} says, and the host memory that holds it or its copy.
   * Host memory that cannot be pinned is {@link UnavailableException} (reported as such; the pageable
   * cases are other cases and still run).
   */
  private void allocate(Buffer buffer) {
    long bytes = buffer.bytes();
    switch (buffer.memory()) {
      case DEVICE, PEER -> {
        CUdeviceptr pointer = new CUdeviceptr();
        onOwner(buffer, () -> Cuda.check(JCudaDriver.cuMemAlloc(pointer, bytes), "cuMemAlloc", buffer.name(),
            "bytes=" + bytes, buffer.memory() == Buffer.Memory.PEER ? "on " + peer.name() : "here"));
        frees.add(() -> onOwner(buffer, () -> JCudaDriver.cuMemFree(pointer)));
        pointers.add(pointer);
        hostPointers.add(null);
        MemorySegment copy = staging.take(bytes);
        frees.add(() -> staging.give(copy));
        host.add(copy);
      }
      case PINNED, MAPPED -> {
        boolean mapped = buffer.memory() == Buffer.Memory.MAPPED;
        Pointer pinned = new Pointer();
        int result = JCudaDriver.cuMemHostAlloc(pinned, bytes, mapped ? JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP : 0);
        if (result != jcuda.driver.CUresult.CUDA_SUCCESS) {
          throw new io.busload.agent.device.UnavailableException("host memory cannot be pinned: cuMemHostAlloc("
              + buffer.name() + ", bytes=" + bytes + (mapped ? ", DEVICEMAP" : "") + ") failed with "
              + jcuda.driver.CUresult.stringFor(result));
        }
        frees.add(() -> JCudaDriver.cuMemFreeHost(pinned));
        CUdeviceptr mappedPointer = null;
        if (mapped) {
          mappedPointer = new CUdeviceptr();
          Cuda.check(JCudaDriver.cuMemHostGetDevicePointer(mappedPointer, pinned, 0), "cuMemHostGetDevicePointer",
              buffer.name());
        }
        pointers.add(mappedPointer);
        hostPointers.add(pinned);
        host.add(MemorySegment.ofBuffer(pinned.getByteBuffer(0, bytes)));
      }
      case PAGEABLE -> {
        MemorySegment segment = arena.allocate(bytes, 4096);
        pointers.add(null);
        hostPointers.add(Pointer.to(segment.asByteBuffer()));
        host.add(segment);
      }
    }
  }

  /** Runs {@code work} with the context that owns {@code buffer} current: the peer's for its memory. */
  private void onOwner(Buffer buffer, Runnable work) {
    if (buffer.memory() == Buffer.Memory.PEER) {
      peer.run(work);
    } else {
      work.run();
    }
  }

  /**
   * Fills buffer {@code index}: on the GPU where the program says how ({@link Program#deviceFill}), then read into its
   * host copy for the check; else on the host, in parallel parts of whole elements, and copied up chunk by chunk.
   */
  private void upload(int index, MemorySegment segment, Function<String, CUfunction> functions) {
    Buffer buffer = buffers.get(index);
    var onDevice = program.deviceFill(index);
    if (onDevice.isPresent() && buffer.memory() == Buffer.Memory.DEVICE) {
      fillOnDevice(index, onDevice.get(), functions.apply(DeviceFill.ENTRY_POINT));
      copyDown(index);
      agreesWithHost(index, segment);
      return;
    }
    int size = buffer.type().bytes();
    long elements = buffer.elements();
    long parts = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors() * 4L, elements / 65536));
    LongStream.range(0, parts).parallel().forEach(p -> {
      long from = elements * p / parts;
      long to = elements * (p + 1) / parts;
      program.fill(index, from, segment.asSlice(from * size, (to - from) * size));
    });
    if (buffer.memory().onHost()) {
      return; // the filled host memory is the buffer
    }
    onOwner(buffer, () -> copyUp(index, segment));
  }

  private void fillOnDevice(int index, DeviceFill fill, CUfunction kernel) {
    Buffer buffer = buffers.get(index);
    Pointer parameters = Pointer.to(Pointer.to(pointers.get(index)), Pointer.to(new long[] {buffer.bytes()}),
        Pointer.to(new long[] {fill.seed()}), Pointer.to(new int[] {fill.kind()}));
    Cuda.check(JCudaDriver.cuLaunchKernel(kernel, FILL_BLOCKS, 1, 1, 256, 1, 1, 0, null, parameters, null),
        "cuLaunchKernel", DeviceFill.ENTRY_POINT, buffer.name(), "bytes=" + buffer.bytes(), "kind=" + fill.kind());
    Cuda.check(JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize", "after " + DeviceFill.ENTRY_POINT, buffer.name());
  }

  /**
   * Elements spread over the whole buffer, its first and last among them, compared with what {@link Program#fill}
   * makes on the host: a device fill that differs from the host's generator fails the case, naming the element.
   */
  private void agreesWithHost(int index, MemorySegment segment) {
    Buffer buffer = buffers.get(index);
    int size = buffer.type().bytes();
    long elements = buffer.elements();
    try (Arena one = Arena.ofConfined()) {
      MemorySegment expected = one.allocate(size, 16);
      for (int k = 0; k <= FILL_SAMPLES && elements > 0; k++) {
        long element = Math.min(elements - 1, elements / FILL_SAMPLES * k + k % 7);
        program.fill(index, element, expected);
        if (MemorySegment.mismatch(expected, 0, size, segment, element * size, (element + 1) * size) >= 0) {
          throw new IllegalStateException(DeviceFill.ENTRY_POINT + " filled " + buffer.name() + "[" + element
              + "] with other bytes than the host's generator (" + buffer.type() + ")");
        }
      }
    }
  }

  private void copyUp(int index, MemorySegment segment) {
    Buffer buffer = buffers.get(index);
    for (long offset = 0; offset < buffer.bytes(); offset += CHUNK_BYTES) {
      long bytes = Math.min(CHUNK_BYTES, buffer.bytes() - offset);
      Cuda.check(JCudaDriver.cuMemcpyHtoD(pointers.get(index).withByteOffset(offset),
          Pointer.to(segment.asSlice(offset, bytes).asByteBuffer()), bytes), "cuMemcpyHtoD",
          buffer.name() + "+" + offset, "bytes=" + bytes);
    }
  }

  /**
   * Binds a step to this workload's pointers once, so a timed batch only launches; on {@code stream}, null for
   * the legacy default stream.
   */
  private Runnable compile(Step step, Function<String, CUfunction> functions, Supplier<Cublas> cublas,
      CUstream stream) {
    return switch (step) {
      case Step.Kernel k -> {
        CUfunction function = functions.apply(k.entryPoint());
        Pointer parameters = Pointer.to(k.args().stream().map(this::argument).toArray(Pointer[]::new));
        String args = k.args().toString();
        yield () -> Cuda.check(JCudaDriver.cuLaunchKernel(function, k.grid().x(), k.grid().y(), k.grid().z(),
            k.block().x(), k.block().y(), k.block().z(), k.sharedBytes(), stream, parameters, null),
            "cuLaunchKernel", k.entryPoint(), "grid=" + k.grid(), "block=" + k.block(), "shared=" + k.sharedBytes(), args);
      }
      case Step.DeviceCopy c -> () -> Cuda.check(JCudaDriver.cuMemcpyDtoDAsync(pointers.get(c.dstBuffer()),
          pointers.get(c.srcBuffer()), c.bytes(), stream), "cuMemcpyDtoDAsync", name(c.dstBuffer()),
          name(c.srcBuffer()), "bytes=" + c.bytes());
      case Step.Copy c -> copy(c, stream);
      case Step.Concurrent c -> concurrent(c, functions, cublas);
      case Step.Memset32 m -> () -> Cuda.check(JCudaDriver.cuMemsetD32Async(pointers.get(m.buffer()), m.value(),
          m.count(), stream), "cuMemsetD32Async", name(m.buffer()), m.value(), "count=" + m.count());
      case Step.Sgemm g -> {
        Cublas library = cublas.get(); // UnavailableException with the reason when the host has none
        yield () -> library.sgemm(g.m(), g.n(), g.k(), pointers.get(g.a()), pointers.get(g.b()), pointers.get(g.c()));
      }
    };
  }

  /** A copy engine's copy, by the call that fits where each side lives. */
  private Runnable copy(Step.Copy c, CUstream stream) {
    Buffer dst = buffers.get(c.dstBuffer());
    Buffer src = buffers.get(c.srcBuffer());
    CUdeviceptr to = pointers.get(c.dstBuffer());
    CUdeviceptr from = pointers.get(c.srcBuffer());
    String what = src.name() + "->" + dst.name();
    if (src.memory().onHost() && dst.memory().onHost()) {
      throw new IllegalArgumentException("steps: " + what + " is a copy from host to host; no link carries it");
    }
    if (src.memory().onHost()) {
      Pointer source = hostPointers.get(c.srcBuffer());
      return () -> Cuda.check(JCudaDriver.cuMemcpyHtoDAsync(to, source, c.bytes(), stream), "cuMemcpyHtoDAsync",
          what, src.memory(), "bytes=" + c.bytes());
    }
    if (dst.memory().onHost()) {
      Pointer target = hostPointers.get(c.dstBuffer());
      return () -> Cuda.check(JCudaDriver.cuMemcpyDtoHAsync(target, from, c.bytes(), stream), "cuMemcpyDtoHAsync",
          what, dst.memory(), "bytes=" + c.bytes());
    }
    if (src.memory() == dst.memory()) {
      return () -> Cuda.check(JCudaDriver.cuMemcpyDtoDAsync(to, from, c.bytes(), stream), "cuMemcpyDtoDAsync", what,
          "bytes=" + c.bytes());
    }
    CUcontext here = new CUcontext();
    Cuda.check(JCudaDriver.cuCtxGetCurrent(here), "cuCtxGetCurrent");
    CUcontext toContext = dst.memory() == Buffer.Memory.PEER ? peer.context() : here;
    CUcontext fromContext = src.memory() == Buffer.Memory.PEER ? peer.context() : here;
    return () -> Cuda.check(JCudaDriver.cuMemcpyPeerAsync(to, toContext, from, fromContext, c.bytes(), stream),
        "cuMemcpyPeerAsync", what, "bytes=" + c.bytes());
  }

  /**
   * Steps at once: each on a non-blocking stream of its own, forked from and joined back to the legacy stream by
   * events, so the batch's timing events still bracket them.
   */
  private Runnable concurrent(Step.Concurrent c, Function<String, CUfunction> functions, Supplier<Cublas> cublas) {
    CUevent fork = event("fork");
    List<CUstream> streams = new ArrayList<>();
    List<CUevent> joins = new ArrayList<>();
    List<Runnable> parts = new ArrayList<>();
    for (Step part : c.steps()) {
      CUstream stream = new CUstream();
      Cuda.check(JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate",
          "NON_BLOCKING");
      frees.add(() -> JCudaDriver.cuStreamDestroy(stream));
      streams.add(stream);
      joins.add(event("join"));
      parts.add(compile(part, functions, cublas, stream));
    }
    return () -> {
      Cuda.check(JCudaDriver.cuEventRecord(fork, null), "cuEventRecord", "fork");
      for (int i = 0; i < parts.size(); i++) {
        Cuda.check(JCudaDriver.cuStreamWaitEvent(streams.get(i), fork, 0), "cuStreamWaitEvent", "fork", i);
        parts.get(i).run();
        Cuda.check(JCudaDriver.cuEventRecord(joins.get(i), streams.get(i)), "cuEventRecord", "join", i);
      }
      for (int i = 0; i < parts.size(); i++) {
        Cuda.check(JCudaDriver.cuStreamWaitEvent(null, joins.get(i), 0), "cuStreamWaitEvent", "join", i);
      }
    };
  }

  /** An event for ordering only (no timing: cheaper to record). */
  private CUevent event(String what) {
    CUevent event = new CUevent();
    Cuda.check(JCudaDriver.cuEventCreate(event, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate", what);
    frees.add(() -> JCudaDriver.cuEventDestroy(event));
    return event;
  }

  private Pointer argument(Arg arg) {
    return switch (arg) {
      case Arg.Buf b -> {
        if (pointers.get(b.index()) == null) {
          throw new IllegalArgumentException("steps: a kernel cannot reach " + name(b.index()) + ": it is "
              + buffers.get(b.index()).memory() + " host memory, not mapped into the device");
        }
        yield Pointer.to(pointers.get(b.index()));
      }
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
   * timed again without it, and so are batches too large to hold; the batch says which.
   */
  @Override
  public Batch time(int launches) {
    boolean hold = holdable && (long) launches * steps.size() <= io.busload.kernels.Fatbin.MAX_HELD_LAUNCHES;
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

  @Override
  public int heldLaunchLimit() {
    return holdable ? Math.max(1, io.busload.kernels.Fatbin.MAX_HELD_LAUNCHES / steps.size()) : Integer.MAX_VALUE;
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
      if (buffer.role() == Buffer.Role.INPUT || buffer.memory().onHost()) {
        continue; // the host copy is what was uploaded, or the host memory is the buffer
      }
      int index = i;
      onOwner(buffer, () -> copyDown(index));
    }
    return List.copyOf(host);
  }

  @Override
  public java.util.Optional<List<MemorySegment>> downloadApart() {
    if (buffers.stream().anyMatch(b -> b.role() != Buffer.Role.INPUT && b.memory().onHost())) {
      return java.util.Optional.empty(); // that host memory is the buffer: there is no second copy to keep
    }
    Cuda.check(JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize", "before reading the buffers back");
    if (apart == null) {
      apart = new ArrayList<>(host);
      for (int i = 0; i < buffers.size(); i++) {
        if (buffers.get(i).role() != Buffer.Role.INPUT) {
          MemorySegment copy = staging.take(buffers.get(i).bytes());
          frees.add(() -> staging.give(copy));
          apart.set(i, copy);
        }
      }
    }
    for (int i = 0; i < buffers.size(); i++) {
      if (buffers.get(i).role() != Buffer.Role.INPUT) {
        int index = i;
        onOwner(buffers.get(i), () -> copyDown(index, apart.get(index)));
      }
    }
    return java.util.Optional.of(List.copyOf(apart));
  }

  private void copyDown(int index) {
    copyDown(index, host.get(index));
  }

  private void copyDown(int index, MemorySegment target) {
    Buffer buffer = buffers.get(index);
    for (long offset = 0; offset < buffer.bytes(); offset += CHUNK_BYTES) {
      long bytes = Math.min(CHUNK_BYTES, buffer.bytes() - offset);
      Cuda.check(JCudaDriver.cuMemcpyDtoH(Pointer.to(target.asSlice(offset, bytes).asByteBuffer()),
          pointers.get(index).withByteOffset(offset), bytes), "cuMemcpyDtoH", buffer.name() + "+" + offset,
          "bytes=" + bytes);
    }
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
