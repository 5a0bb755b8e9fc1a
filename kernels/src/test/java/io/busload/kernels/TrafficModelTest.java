package io.busload.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TrafficModelTest {

  @Test
  void strideCopy_anyStride_usefulBytesAreFourReadFourWrittenPerElement() {
    for (long stride : Catalog.STRIDES) {
      KernelCase c = new KernelCase(Catalog.STRIDE_COPY_FP32, Map.of("stride", stride));
      Traffic t = c.traffic(1L << 24);
      assertThat(t.bytesRead()).isEqualTo(64L << 20);
      assertThat(t.bytesWritten()).isEqualTo(64L << 20);
      assertThat(t.bytes()).isEqualTo(128L << 20);
      assertThat(t.flops()).isZero();
    }
  }

  @Test
  void strideCopy_stride32_inputIsStrideTimesOutput() {
    KernelCase c = new KernelCase(Catalog.STRIDE_COPY_FP32, Map.of("stride", 32L));
    assertThat(c.inputElements(1L << 24)).isEqualTo(1L << 29);
  }

  @Test
  void memcpy_sameElements_movesTheStrideOneCopysBytes() {
    KernelCase memcpy = Catalog.MEMCPY_D2D.cases().getFirst();
    KernelCase strideOne = new KernelCase(Catalog.STRIDE_COPY_FP32, Map.of("stride", 1L));
    assertThat(memcpy.traffic(4096)).isEqualTo(strideOne.traffic(4096));
    assertThat(memcpy.inputElements(4096)).isEqualTo(4096);
  }
}
