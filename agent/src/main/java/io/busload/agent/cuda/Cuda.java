package io.busload.agent.cuda;

import java.util.Arrays;
import java.util.stream.Collectors;
import jcuda.driver.CUresult;

/** The one checker every JCuda call goes through (STYLE.md habit 5). */
public final class Cuda {
  private Cuda() {}

  /**
   * Throws a {@link CudaException} naming the call and its arguments when {@code result} is not
   * CUDA_SUCCESS, for example {@code CUDA_ERROR_OUT_OF_MEMORY: cuMemAlloc(bytes=2147483648)}.
   */
  public static void check(int result, String call, Object... arguments) {
    if (result != CUresult.CUDA_SUCCESS) {
      String args = Arrays.stream(arguments).map(String::valueOf).collect(Collectors.joining(", "));
      throw new CudaException(result, CUresult.stringFor(result) + ": " + call + "(" + args + ")");
    }
  }

  /** Errors after which the context is unusable until reset (CUDA driver API documentation). */
  public static boolean isSticky(int result) {
    return result == CUresult.CUDA_ERROR_ILLEGAL_ADDRESS || result == CUresult.CUDA_ERROR_LAUNCH_FAILED
        || result == CUresult.CUDA_ERROR_MISALIGNED_ADDRESS || result == CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION
        || result == CUresult.CUDA_ERROR_INVALID_ADDRESS_SPACE || result == CUresult.CUDA_ERROR_INVALID_PC
        || result == CUresult.CUDA_ERROR_HARDWARE_STACK_ERROR || result == CUresult.CUDA_ERROR_ASSERT;
  }

  /** 13000 as {@code 13.0}. */
  public static String version(int driverVersion) {
    return driverVersion / 1000 + "." + driverVersion % 1000 / 10;
  }
}
