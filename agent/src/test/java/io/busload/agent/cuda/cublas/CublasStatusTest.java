package io.busload.agent.cuda.cublas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.agent.device.DeviceException;
import jcuda.driver.CUdeviceptr;
import org.junit.jupiter.api.Test;

/** The cuBLAS checker and the device-address helper; neither needs a GPU or loads a native library. */
class CublasStatusTest {

  @Test
  void check_invalidValue_namesStatusCallAndArguments() {
    assertThatThrownBy(() -> CublasStatus.check(7, "cublasSgemm_v2", "m=0", "n=4"))
        .isInstanceOf(CublasException.class)
        .isInstanceOf(DeviceException.class)
        .hasMessage("CUBLAS_STATUS_INVALID_VALUE: cublasSgemm_v2(m=0, n=4)");
  }

  @Test
  void check_success_silent() {
    CublasStatus.check(CublasStatus.SUCCESS, "cublasCreate_v2");
  }

  @Test
  void name_everyDocumentedStatus_named() {
    assertThat(CublasStatus.name(1)).isEqualTo("CUBLAS_STATUS_NOT_INITIALIZED");
    assertThat(CublasStatus.name(3)).isEqualTo("CUBLAS_STATUS_ALLOC_FAILED");
    assertThat(CublasStatus.name(8)).isEqualTo("CUBLAS_STATUS_ARCH_MISMATCH");
    assertThat(CublasStatus.name(11)).isEqualTo("CUBLAS_STATUS_MAPPING_ERROR");
    assertThat(CublasStatus.name(13)).isEqualTo("CUBLAS_STATUS_EXECUTION_FAILED");
    assertThat(CublasStatus.name(14)).isEqualTo("CUBLAS_STATUS_INTERNAL_ERROR");
    assertThat(CublasStatus.name(15)).isEqualTo("CUBLAS_STATUS_NOT_SUPPORTED");
    assertThat(CublasStatus.name(16)).isEqualTo("CUBLAS_STATUS_LICENSE_ERROR");
    assertThat(CublasStatus.name(42)).isEqualTo("CUBLAS_STATUS_42 (unknown)");
  }

  @Test
  void deviceAddress_byteOffsetPointer_includesTheOffset() {
    CUdeviceptr base = new CUdeviceptr();
    assertThat(DeviceAddress.of(base)).isZero();
    assertThat(DeviceAddress.of(base.withByteOffset(256).withByteOffset(64))).isEqualTo(320);
  }
}
