package io.busload.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.agent.cuda.Cuda;
import io.busload.agent.cuda.CudaDiscovery;
import io.busload.agent.cuda.CudaException;
import jcuda.driver.CUresult;
import org.junit.jupiter.api.Test;

/** The pure parts of the CUDA backend; none needs a GPU or loads JCuda's native library. */
class CudaHelpersTest {

  @Test
  void check_errorResult_namesCallArgumentsAndResult() {
    assertThatThrownBy(() -> Cuda.check(CUresult.CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc", "input", "bytes=2147483648"))
        .isInstanceOf(CudaException.class)
        .hasMessage("CUDA_ERROR_OUT_OF_MEMORY: cuMemAlloc(input, bytes=2147483648)");
  }

  @Test
  void check_success_silent() {
    Cuda.check(CUresult.CUDA_SUCCESS, "cuInit", "flags=0");
  }

  @Test
  void driverVersion_13000_is13point0() {
    assertThat(CudaDiscovery.driverVersion(13000)).isEqualTo("13.0");
    assertThat(CudaDiscovery.driverVersion(12060)).isEqualTo("12.6");
  }

  @Test
  void theoreticalPeak_h100Attributes_clockTimesBytesTimesTwo() {
    // 2619 MHz x 5120 bit / 8 x 2 = 3352.32 GB/s
    assertThat(CudaDiscovery.theoreticalPeak(2_619_000_000L, 5120)).isEqualTo(3.35232e12);
  }

  @Test
  void uuid_sixteenBytes_nvidiaSmiSpelling() {
    byte[] bytes = new byte[16];
    for (int i = 0; i < 16; i++) {
      bytes[i] = (byte) (0xF0 + i);
    }
    assertThat(CudaDiscovery.uuid(bytes)).isEqualTo("GPU-f0f1f2f3-f4f5-f6f7-f8f9-fafbfcfdfeff");
  }
}
