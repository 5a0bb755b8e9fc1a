package io.busload.agent.cuda.cublas;

import jcuda.driver.CUdeviceptr;

/**
 * The raw device address a {@link CUdeviceptr} stands for, to hand to a C library through FFM.
 *
 * <p>JCuda keeps the address in {@code NativePointerObject.getNativePointer()} plus {@code Pointer.getByteOffset()}
 * (what {@code withByteOffset} adds), both {@code protected}; its native code passes their sum to the driver.
 * Java lets a subclass call a protected method only on instances of that subclass, so this class copies the
 * pointer with {@code CUdeviceptr}'s protected copy constructor (which copies both fields) and reads the sum off
 * the copy. No reflection, no {@code --add-opens}, and nothing beyond JCuda's published class shapes.
 */
final class DeviceAddress extends CUdeviceptr {
  private DeviceAddress(CUdeviceptr pointer) {
    super(pointer);
  }

  /** The address {@code pointer} refers to, including any byte offset. */
  static long of(CUdeviceptr pointer) {
    DeviceAddress copy = new DeviceAddress(pointer);
    return copy.getNativePointer() + copy.getByteOffset();
  }
}
