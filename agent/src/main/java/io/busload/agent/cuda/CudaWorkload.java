package io.busload.agent.cuda;

import io.busload.agent.device.Workload;
import io.busload.kernels.FloatView;
import io.busload.kernels.KernelCase;
import io.busload.kernels.KernelSpec;
import io.busload.kernels.Launch;
import io.busload.kernels.Poison;
import io.busload.kernels.RandomFloats;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import jcuda.Pointer;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUfunction;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/** Buffers and events of one kernel case on a GPU; every launch goes to the legacy default stream. */
final class CudaWorkload implements Workload {
  /** Host staging chunk for uploads and downloads: bounded host memory whatever the input size. */
  private static final long CHUNK_BYTES = 64L << 20;
  private static final int FLOAT = 4;

  private final KernelCase kernel;
  private final CUfunction function;
  private final long elements;
  private final long inputBytes;
  private final long outputBytes;
  private final CUdeviceptr input = new CUdeviceptr();
  private final CUdeviceptr output = new CUdeviceptr();
  private final CUevent start = new CUevent();
  private final CUevent stop = new CUevent();
  private final List<Runnable> frees = new ArrayList<>();
  private final Arena arena = Arena.ofShared(); // the input is generated on all cores
  private Pointer parameters;
  private final Launch launch;

  CudaWorkload(KernelCase kernel, CUfunction function, long elements, RandomFloats random) {
    this.kernel = kernel;
    this.function = function;
    this.elements = elements;
    this.inputBytes = Math.multiplyExact(kernel.inputElements(elements), FLOAT);
    this.outputBytes = Math.multiplyExact(elements, FLOAT);
    this.launch = kernel.launch(elements).orElse(null);
    try {
      allocate(input, inputBytes, "input");
      allocate(output, outputBytes, "output");
      Cuda.check(JCudaDriver.cuEventCreate(start, CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate", "start");
      frees.add(() -> JCudaDriver.cuEventDestroy(start));
      Cuda.check(JCudaDriver.cuEventCreate(stop, CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate", "stop");
      frees.add(() -> JCudaDriver.cuEventDestroy(stop));
      upload(random);
      Cuda.check(JCudaDriver.cuMemsetD32(output, Poison.BITS, elements), "cuMemsetD32",
          "output", String.format("0x%08X", Poison.BITS), "count=" + elements);
      parameters = kernel.spec().kind() == KernelSpec.Kind.KERNEL ? parameters() : null;
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private void allocate(CUdeviceptr pointer, long bytes, String what) {
    Cuda.check(JCudaDriver.cuMemAlloc(pointer, bytes), "cuMemAlloc", what, "bytes=" + bytes);
    frees.add(() -> JCudaDriver.cuMemFree(pointer));
  }

  /** Random input generated chunk by chunk on all cores, copied up chunk by chunk. */
  private void upload(RandomFloats random) {
    MemorySegment staging = arena.allocate(Math.min(CHUNK_BYTES, inputBytes), 64);
    int cores = Runtime.getRuntime().availableProcessors();
    for (long offset = 0; offset < inputBytes; offset += CHUNK_BYTES) {
      long bytes = Math.min(CHUNK_BYTES, inputBytes - offset);
      long first = offset / FLOAT;
      long count = bytes / FLOAT;
      long parts = Math.max(1, Math.min(cores, count / 65536));
      LongStream.range(0, parts).parallel().forEach(p -> {
        long from = count * p / parts;
        long to = count * (p + 1) / parts;
        random.fill(staging.asSlice(from * FLOAT, (to - from) * FLOAT), first + from, to - from);
      });
      Cuda.check(JCudaDriver.cuMemcpyHtoD(input.withByteOffset(offset),
          Pointer.to(staging.asSlice(0, bytes).asByteBuffer()), bytes), "cuMemcpyHtoD", "input+" + offset,
          "bytes=" + bytes);
    }
  }

  private Pointer parameters() {
    List<Pointer> args = new ArrayList<>();
    for (KernelSpec.Arg arg : kernel.spec().args()) {
      args.add(switch (arg.kind()) {
        case INPUT -> Pointer.to(input);
        case OUTPUT -> Pointer.to(output);
        case ELEMENTS -> Pointer.to(new long[] {elements});
        case PARAM -> Pointer.to(new long[] {kernel.param(arg.param())});
      });
    }
    return Pointer.to(args.toArray(Pointer[]::new));
  }

  @Override
  public double timeBatch(int launches) {
    Cuda.check(JCudaDriver.cuEventRecord(start, null), "cuEventRecord", "start");
    for (int i = 0; i < launches; i++) {
      launchOnce();
    }
    Cuda.check(JCudaDriver.cuEventRecord(stop, null), "cuEventRecord", "stop");
    // Errors of the launches themselves (illegal address, ...) surface here.
    Cuda.check(JCudaDriver.cuEventSynchronize(stop), "cuEventSynchronize", kernel + " after " + launches + " launches");
    float[] milliseconds = new float[1];
    Cuda.check(JCudaDriver.cuEventElapsedTime(milliseconds, start, stop), "cuEventElapsedTime");
    return milliseconds[0] / 1e3;
  }

  private void launchOnce() {
    if (function == null) {
      Cuda.check(JCudaDriver.cuMemcpyDtoDAsync(output, input, outputBytes, null), "cuMemcpyDtoDAsync",
          "output", "input", "bytes=" + outputBytes);
      return;
    }
    Cuda.check(JCudaDriver.cuLaunchKernel(function, (int) launch.gridX(), 1, 1, launch.blockX(), 1, 1, 0, null,
        parameters, null), "cuLaunchKernel", kernel.spec().entryPoint(), "grid=" + launch.gridX(),
        "block=" + launch.blockX(), "elements=" + elements, kernel.params());
  }

  @Override
  public FloatView readOutput() {
    Cuda.check(JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize", "before reading " + kernel + "'s output");
    MemorySegment host = arena.allocate(outputBytes, 64);
    for (long offset = 0; offset < outputBytes; offset += CHUNK_BYTES) {
      long bytes = Math.min(CHUNK_BYTES, outputBytes - offset);
      Cuda.check(JCudaDriver.cuMemcpyDtoH(Pointer.to(host.asSlice(offset, bytes).asByteBuffer()),
          output.withByteOffset(offset), bytes), "cuMemcpyDtoH", "output+" + offset, "bytes=" + bytes);
    }
    return FloatView.of(host);
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
