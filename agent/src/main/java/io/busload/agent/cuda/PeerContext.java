package io.busload.agent.cuda;

import io.busload.agent.device.UnavailableException;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * The other GPU of a pair, for as long as one workload uses it: its primary context retained, peer
 * access enabled both ways, and a way to run its allocations and copies with its context current. A pair the
 * hardware cannot join directly is {@link UnavailableException} "no peer access", never a bandwidth of zero.
 */
final class PeerContext implements AutoCloseable {
  private final String self;
  private final String name;
  private final CUdevice device = new CUdevice();
  private final CUcontext context = new CUcontext();
  private final CUcontext home;
  private boolean retained;

  /** {@code home} is the current context of the device running the case, {@code self} its name. */
  PeerContext(String self, CUdevice selfDevice, CUcontext home, int ordinal, int hostDevices) {
    this.self = self;
    this.name = "cuda:" + ordinal;
    this.home = home;
    if (ordinal < 0 || ordinal >= hostDevices) {
      throw new IllegalArgumentException("peer: device " + name + " does not exist; this host has cuda:0..cuda:"
          + (hostDevices - 1));
    }
    Cuda.check(JCudaDriver.cuDeviceGet(device, ordinal), "cuDeviceGet", "peer ordinal=" + ordinal);
    int[] there = new int[1];
    int[] back = new int[1];
    Cuda.check(JCudaDriver.cuDeviceCanAccessPeer(there, selfDevice, device), "cuDeviceCanAccessPeer", self, name);
    Cuda.check(JCudaDriver.cuDeviceCanAccessPeer(back, device, selfDevice), "cuDeviceCanAccessPeer", name, self);
    if (there[0] == 0 || back[0] == 0) {
      throw new UnavailableException("no peer access between " + self + " and " + name + " (cuDeviceCanAccessPeer: "
          + self + "->" + name + " " + there[0] + ", " + name + "->" + self + " " + back[0] + ")");
    }
    Cuda.check(JCudaDriver.cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain", name);
    retained = true;
    try {
      enable(context, self + "->" + name);
      run(() -> enable(home, name + "->" + self));
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private static void enable(CUcontext target, String what) {
    int result = JCudaDriver.cuCtxEnablePeerAccess(target, 0);
    if (result != CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
      Cuda.check(result, "cuCtxEnablePeerAccess", what);
    }
  }

  CUcontext context() {
    return context;
  }

  String name() {
    return name;
  }

  /** Runs {@code work} with the peer's context current, then makes the home context current again. */
  void run(Runnable work) {
    Cuda.check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent", name);
    try {
      work.run();
    } finally {
      Cuda.check(JCudaDriver.cuCtxSetCurrent(home), "cuCtxSetCurrent", self);
    }
  }

  /** Peer access stays enabled (other cases of the run use it); only the retain is given back. */
  @Override
  public void close() {
    if (retained) {
      JCudaDriver.cuDevicePrimaryCtxRelease(device);
      retained = false;
    }
  }
}
