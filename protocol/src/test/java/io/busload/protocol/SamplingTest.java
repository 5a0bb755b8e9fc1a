package io.busload.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How a result was timed travels as typed fields, in JSON and CSV, and old messages and files still read. */
class SamplingTest {
  static Sampling sampled() {
    return new Sampling(20, 3, 1, StopReason.SPREAD_SETTLED,
        new Clocks(Clocks.Reading.READ, "NVML 13.580.82", 1755, 1980, 2619, 2619, 0x4L, 2, false),
        CacheResidency.of(8L << 20, 50L << 20, false));
  }

  static KernelResult timed() {
    return JsonCodecTest.result(true).withSampling(ResultStatus.MEASURED, sampled());
  }

  @Test
  void kernelResult_withSampling_roundTripsThroughJsonEqual() {
    KernelResult original = timed();

    KernelResult back = JsonCodec.fromJson(JsonCodec.toJson(original), KernelResult.class);

    assertThat(back.status()).isEqualTo(ResultStatus.MEASURED);
    assertThat(back.sampling()).isEqualTo(original.sampling());
    assertThat(back.sampling().clocks().throttleReasons()).isEqualTo(0x4L);
    assertThat(back.sampling().cache().residency()).isEqualTo(CacheResidency.Residency.CACHE_RESIDENT);
    assertThat(new String(JsonCodec.toJson(original))).contains("\"status\":\"MEASURED\"", "\"heldSamples\":20",
        "\"stopReason\":\"SPREAD_SETTLED\"", "\"throttledSamplesDropped\":2", "\"reading\":\"READ\"");
  }

  @Test
  void kernelResult_untimed_leavesSamplingOutOfJson() {
    assertThat(new String(JsonCodec.toJson(JsonCodecTest.result(false)))).doesNotContain("sampling")
        .contains("\"status\":\"DEVICE_FAILED\"");
  }

  @Test
  void status_ofResultsWithoutStatus_derivedFromTheirFields() {
    KernelResult valid = JsonCodecTest.result(true);
    assertThat(valid.status()).isEqualTo(ResultStatus.MEASURED);
    assertThat(ResultStatus.legacy(false, "skipped: size: needs 9 GB", List.of("skipped: size")))
        .isEqualTo(ResultStatus.SKIPPED);
    assertThat(ResultStatus.legacy(false, "unavailable: cuBLAS unavailable", List.of()))
        .isEqualTo(ResultStatus.UNAVAILABLE);
    assertThat(ResultStatus.legacy(false, "no timing", List.of("out[7]: expected 1, got 2", "1 of 64 elements differ")))
        .isEqualTo(ResultStatus.CHECK_FAILED);
    assertThat(ResultStatus.legacy(false, "no timing", List.of("cuLaunchKernel failed: CUDA_ERROR_ILLEGAL_ADDRESS")))
        .isEqualTo(ResultStatus.DEVICE_FAILED);
  }

  @Test
  void kernelResult_statusDisagreeingWithValid_refused() {
    KernelResult r = JsonCodecTest.result(false);
    assertThatThrownBy(() -> r.withSampling(ResultStatus.MEASURED, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("status: MEASURED with valid=false");
  }

  @Test
  void clocks_notRead_carriesNoFigures() {
    Clocks notRead = Clocks.notRead("libnvidia-ml.so.1 not found");
    assertThat(notRead.smMinMHz()).isNull();
    assertThat(notRead.throttleReasons()).isNull();
    assertThatThrownBy(() -> new Clocks(Clocks.Reading.NOT_READ, "x", 1980, null, null, null, null, 0, false))
        .hasMessageContaining("figures given though reading is NOT_READ");
  }

  @Test
  void throttleReasons_benignBitsAreNotThrottling_namedByNvml() {
    assertThat(Clocks.throttling(0x1 | 0x2 | 0x100)).isFalse();
    assertThat(Clocks.throttling(0x4)).isTrue();
    assertThat(Clocks.reasonNames(0x44)).containsExactly("sw power cap", "hw thermal slowdown");
  }

  @Test
  void cacheResidency_underFourL2s_flaggedOrStudy_atFourAbove() {
    long l2 = 50L << 20;
    assertThat(CacheResidency.of(4 * l2, l2, false).residency()).isEqualTo(CacheResidency.Residency.ABOVE_L2);
    assertThat(CacheResidency.of(4 * l2 - 1, l2, false).residency())
        .isEqualTo(CacheResidency.Residency.CACHE_RESIDENT);
    assertThat(CacheResidency.of(4 * l2 - 1, l2, true).residency()).isEqualTo(CacheResidency.Residency.CACHE_STUDY);
    assertThat(CacheResidency.of(1, 0, false).residency()).isEqualTo(CacheResidency.Residency.L2_UNKNOWN);
  }
}
