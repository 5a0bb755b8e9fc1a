package io.busload.agent.cuda;

import io.busload.agent.device.Device;
import io.busload.agent.device.Workload;
import io.busload.kernels.Fatbin;
import io.busload.kernels.KernelCase;
import io.busload.kernels.KernelSpec;
import io.busload.kernels.RandomFloats;
import io.busload.protocol.DeviceInfo;
import java.util.HashMap;
import java.util.Map;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/** One GPU: its primary context made current on the worker thread, the fatbin loaded once. */
public final class CudaDevice implements Device {
  /**
   * 2^26 output floats: 256 MiB out and at least 256 MiB in, well above H100/H200 L2 (50/60 MB), and long
   * enough (about 130 us at stride 1 on an H200) that the gap between launches in a batch stays small.
   * At 2^24 the H200 memcpy read 3.9 TB/s against about 4.3 TB/s for larger copies (docs/results).
   */
  static final long MAX_DEFAULT_ELEMENTS = 1L << 26;
  /** Bytes per output element of the largest default case: stride 32 reads 32 floats and writes one. */
  static final long WORST_BYTES_PER_ELEMENT = 33L * Float.BYTES;

  private final int ordinal;
  private final CUdevice device;
  private final DeviceInfo info;
  private CUcontext context;
  private CUmodule module;
  private final Map<String, CUfunction> functions = new HashMap<>();

  CudaDevice(int ordinal, CUdevice device, DeviceInfo info) {
    this.ordinal = ordinal;
    this.device = device;
    this.info = info;
  }

  @Override
  public DeviceInfo info() {
    return info;
  }

  @Override
  public String shortId() {
    return "cuda:" + ordinal;
  }

  @Override
  public long defaultElements() {
    return defaultElements(info.memoryBytes());
  }

  /** The largest power of two up to 2^26 whose worst case fits in half the card, for smaller consumer cards. */
  static long defaultElements(long memoryBytes) {
    long fits = Math.max(1, memoryBytes / 2 / WORST_BYTES_PER_ELEMENT);
    return Math.min(MAX_DEFAULT_ELEMENTS, Long.highestOneBit(fits));
  }

  @Override
  public double sampleTargetSeconds() {
    return 1e-3; // host launch latency stays outside a ~1 ms batch (ARCHITECTURE.md)
  }

  @Override
  public double timeCapSeconds() {
    return 2.0;
  }

  @Override
  public String timerDescription() {
    return "between one CUDA event pair";
  }

  @Override
  public void attach() {
    context = new CUcontext();
    Cuda.check(JCudaDriver.cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain", shortId());
    Cuda.check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent", shortId());
    byte[] fatbin = Fatbin.bytes();
    module = new CUmodule();
    Cuda.check(JCudaDriver.cuModuleLoadData(module, fatbin), "cuModuleLoadData", "fatbin of " + fatbin.length + " bytes");
  }

  @Override
  public Workload prepare(KernelCase kernel, long outputElements, RandomFloats input) {
    if (module == null) {
      throw new IllegalStateException(shortId() + " used before attach() on its worker thread");
    }
    CUfunction function = kernel.spec().kind() == KernelSpec.Kind.KERNEL ? function(kernel.spec().entryPoint()) : null;
    return new CudaWorkload(kernel, function, outputElements, input);
  }

  private CUfunction function(String entryPoint) {
    CUfunction function = functions.get(entryPoint);
    if (function == null) {
      function = new CUfunction();
      Cuda.check(JCudaDriver.cuModuleGetFunction(function, module, entryPoint), "cuModuleGetFunction", entryPoint);
      functions.put(entryPoint, function);
    }
    return function;
  }

  @Override
  public void close() {
    if (module != null) {
      JCudaDriver.cuModuleUnload(module);
      module = null;
      functions.clear();
    }
    if (context != null) {
      JCudaDriver.cuDevicePrimaryCtxRelease(device);
      context = null;
    }
  }
}
