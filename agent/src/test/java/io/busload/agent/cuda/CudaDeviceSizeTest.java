package io.busload.agent.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CudaDeviceSizeTest {
  @Test
  void defaultElements_datacenterCard_is2To26() {
    assertThat(CudaDevice.defaultElements(80L << 30)).isEqualTo(1L << 26);
    assertThat(CudaDevice.defaultElements(141L << 30)).isEqualTo(1L << 26);
  }

  @Test
  void defaultElements_8GiBCard_worstCaseFitsInHalf() {
    long n = CudaDevice.defaultElements(8L << 30);
    assertThat(n).isEqualTo(1L << 24);
    assertThat(n * 33 * 4).isLessThanOrEqualTo(4L << 30);
  }
}
