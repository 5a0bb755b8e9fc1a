package io.busload.agent.cuda;

import io.busload.agent.cuda.cublas.Cublas;
import io.busload.agent.cuda.cublas.CublasUnavailableException;
import io.busload.agent.cuda.nvml.Nvml;
import io.busload.agent.device.DeviceConditions;
import io.busload.agent.device.Device;
import io.busload.agent.device.DeviceException;
import io.busload.agent.device.UnavailableException;
import io.busload.agent.device.Workload;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Fatbin;
import io.busload.kernels.Program;
import io.busload.protocol.DeviceInfo;
import java.util.HashMap;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One GPU: its primary context made current on the worker thread, the fatbin loaded once. */
public final class CudaDevice implements Device {
  private static final Logger LOG = LoggerFactory.getLogger(CudaDevice.class);
  /** The CUDA version nvcc 13.0's PTX needs the driver to support (cuDriverGetVersion 13000). */
  static final int NEEDED_DRIVER = 13000;

  private final int ordinal;
  /** GPUs of this host: the pairs the interconnect suite can measure. */
  private final int hostDevices;
  private final CUdevice device;
  private final DeviceInfo info;
  private CUcontext context;
  private CUmodule module;
  private final Map<String, CUfunction> functions = new HashMap<>();
  private Cublas cublas;
  private String cublasUnavailable;
  private Sensors sensors;
  /** Host copies of device buffers, kept between cases (no zeroing, no page faults per case). */
  private final HostStaging staging = new HostStaging(new HostStaging.Pinning() {
    @Override
    public boolean pin(java.lang.foreign.MemorySegment segment) {
      // In pieces: a direct ByteBuffer (JCuda's way to name host memory) holds at most 2 GiB. Every copy of a
      // CudaWorkload is a 64 MiB chunk from a chunk boundary, so each lies within one registered piece. Failing to
      // pin (a memlock limit) only slows the copies; the driver's error is logged once.
      long done = 0;
      while (done < segment.byteSize()) {
        long bytes = Math.min(PIN_PIECE_BYTES, segment.byteSize() - done);
        int result = JCudaDriver.cuMemHostRegister(Pointer.to(segment.asSlice(done, bytes).asByteBuffer()), bytes, 0);
        if (result != CUresult.CUDA_SUCCESS) {
          if (!pinWarned) {
            pinWarned = true;
            LOG.warn("{}: host copies stay pageable: cuMemHostRegister(bytes={}) failed with {}", shortId(), bytes,
                CUresult.stringFor(result));
          }
          unpin(segment.asSlice(0, done));
          return false;
        }
        done += bytes;
      }
      return true;
    }

    @Override
    public void unpin(java.lang.foreign.MemorySegment segment) {
      for (long done = 0; done < segment.byteSize(); done += PIN_PIECE_BYTES) {
        long bytes = Math.min(PIN_PIECE_BYTES, segment.byteSize() - done);
        JCudaDriver.cuMemHostUnregister(Pointer.to(segment.asSlice(done, bytes).asByteBuffer()));
      }
    }
  });
  /** Host memory is page-locked in pieces of this size: a whole number of CudaWorkload's copy chunks. */
  static final long PIN_PIECE_BYTES = 1L << 30;
  private boolean pinWarned;

  CudaDevice(int ordinal, int hostDevices, CUdevice device, DeviceInfo info) {
    this.ordinal = ordinal;
    this.hostDevices = hostDevices;
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
  public DeviceLimits limits() {
    long[] free = new long[1];
    long[] total = new long[1];
    Cuda.check(JCudaDriver.cuMemGetInfo(free, total), "cuMemGetInfo", shortId());
    return new DeviceLimits(DeviceLimits.CUDA, total[0], free[0], info.l2Bytes(), info.multiprocessors(),
        ordinal, hostDevices);
  }

  @Override
  public double sampleTargetSeconds() {
    // 5 ms, not 1: on an H100 host, 1 ms batches read 1-2% slower through JCuda than natively (a host gap per
    // batch; docs/results/2026-11-22-h100-coalescing); the native cross-check uses the same target.
    return 5e-3;
  }

  @Override
  public boolean timesApartFromHost() {
    return true;
  }

  @Override
  public double timeCapSeconds() {
    return 2.0;
  }

  @Override
  public String timerDescription() {
    // Whether each batch was held is recorded per sample: a batch over the limit, or one whose hold
    // timed out, is timed without the blocking kernel.
    return "between one CUDA event pair, behind a blocking kernel where held (batches of up to "
        + io.busload.kernels.Fatbin.MAX_HELD_LAUNCHES + " steps)";
  }

  @Override
  public void attach() {
    context = new CUcontext();
    Cuda.check(JCudaDriver.cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain", shortId());
    Cuda.check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent", shortId());
    loadModule();
  }

  private void loadModule() {
    byte[] fatbin = Fatbin.bytes();
    module = new CUmodule();
    try {
      Cuda.check(JCudaDriver.cuModuleLoadData(module, fatbin), "cuModuleLoadData", "fatbin of " + fatbin.length + " bytes");
    } catch (CudaException e) {
      module = null;
      if (e.result() == CUresult.CUDA_ERROR_UNSUPPORTED_PTX_VERSION || e.result() == CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU) {
        throw new DeviceException(shortId() + ": the fatbin has no code this driver can run (" + e.getMessage()
            + "); driver supports CUDA " + Cuda.version(driverVersion()) + ", the fatbin's PTX (nvcc 13.0) needs "
            + Cuda.version(NEEDED_DRIVER) + " or newer: update the NVIDIA driver", e);
      }
      throw e;
    }
    functions.clear();
  }

  static int driverVersion() {
    int[] version = new int[1];
    Cuda.check(JCudaDriver.cuDriverGetVersion(version), "cuDriverGetVersion");
    return version[0];
  }

  @Override
  public Workload prepare(Program program) {
    if (module == null) {
      throw new IllegalStateException(shortId() + " used before attach() on its worker thread");
    }
    return new CudaWorkload(program, this::function, this::cublas,
        peer -> new PeerContext(shortId(), device, context, peer, hostDevices), staging);
  }

  /** cuBLAS, loaded the first time a program needs it; {@link UnavailableException} with the reason otherwise. */
  private Cublas cublas() {
    if (cublas == null && cublasUnavailable == null) {
      try {
        cublas = Cublas.load();
      } catch (CublasUnavailableException e) {
        cublasUnavailable = e.getMessage();
      }
    }
    if (cublas == null) {
      throw new UnavailableException("cuBLAS unavailable: " + cublasUnavailable);
    }
    return cublas;
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
  public DeviceConditions conditions() {
    return GpuConditions.query(info.uuid() != null ? info.uuid() : Integer.toString(ordinal));
  }

  /** NVML's clocks, error counters and XID events, and energy of this GPU; or, each, why they cannot be read. */
  private record Sensors(io.busload.agent.device.ClockSensor clock, io.busload.agent.device.HealthSensor health,
      io.busload.agent.device.EnergySensor energy) {}

  /** This GPU's sensors, found by its CUDA UUID together the first time a run or case asks for one. */
  private Sensors sensors() {
    if (sensors == null) {
      String uuid = info.uuid();
      sensors = new Sensors(Nvml.sensor(uuid), Nvml.healthSensor(uuid), Nvml.energySensor(uuid));
    }
    return sensors;
  }

  @Override
  public io.busload.agent.device.ClockSensor clockSensor() {
    return sensors().clock();
  }

  @Override
  public io.busload.agent.device.HealthSensor healthSensor() {
    return sensors().health();
  }

  @Override
  public io.busload.agent.device.EnergySensor energySensor() {
    return sensors().energy();
  }

  /**
   * After an error that leaves the context unusable (illegal address, launch failure, ...), every later call
   * in it fails: reset the primary context, make it current again and reload the fatbin (and cuBLAS's handle).
   */
  @Override
  public String recover(DeviceException error) {
    if (!(error instanceof CudaException cuda) || !Cuda.isSticky(cuda.result())) {
      return null;
    }
    staging.close(); // its page-locked registrations belong to the context about to be reset
    if (cublas != null) {
      cublas.close();
      cublas = null;
    }
    functions.clear();
    module = null;
    Cuda.check(JCudaDriver.cuDevicePrimaryCtxReset(device), "cuDevicePrimaryCtxReset", shortId());
    Cuda.check(JCudaDriver.cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain", shortId());
    Cuda.check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent", shortId());
    JCudaDriver.cuDevicePrimaryCtxRelease(device); // keep one retain, as attach() left it
    loadModule();
    return "the CUDA context was lost (" + CUresult.stringFor(cuda.result()) + "): primary context reset and "
        + "fatbin reloaded before the next case";
  }

  @Override
  public void close() {
    staging.close();
    if (cublas != null) {
      cublas.close();
      cublas = null;
    }
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
