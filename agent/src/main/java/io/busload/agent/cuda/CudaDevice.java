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
  /** 2^24 output floats: 64 MiB out and at least 64 MiB in, well above H100/H200 L2 (50/60 MB). */
  static final long DEFAULT_ELEMENTS = 1L << 24;

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
    return DEFAULT_ELEMENTS;
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
