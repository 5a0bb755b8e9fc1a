package io.busload.kernels.matmul;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.kernels.Arg;
import io.busload.kernels.Buffer;
import io.busload.kernels.Check;
import io.busload.kernels.Coalescing;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Dim3;
import io.busload.kernels.Harness;
import io.busload.kernels.KernelCase;
import io.busload.kernels.KernelSpec;
import io.busload.kernels.Parallel;
import io.busload.kernels.Step;
import io.busload.kernels.Traffic;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The matmul family's programs: geometry, traffic and coalescing models, inputs, the CPU run and its check. */
class MatmulTest {
  private static final Matmul FAMILY = new Matmul();
  private static final DeviceLimits H100 = new DeviceLimits(DeviceLimits.CUDA, 80L << 30, 79L << 30, 50L << 20, 132);
  private static final DeviceLimits CPU = new DeviceLimits(DeviceLimits.CPU, 16L << 30, 8L << 30, 32L << 20, 4);

  static KernelCase kernelCase(Matmul.Variant variant) {
    return new KernelCase(new KernelSpec(variant.kernel(), Matmul.NAME, List.of()), Map.of());
  }

  static Matmul.Case program(Matmul.Variant variant, long n) {
    return (Matmul.Case) FAMILY.program(kernelCase(variant), n);
  }

  @Test
  void kernels_family_fiveKernelsReferenceLast() {
    assertThat(FAMILY.kernels()).extracting(KernelSpec::name).containsExactly("matmul-naive", "matmul-coalesced",
        "matmul-row-per-thread", "matmul-col-per-thread", "matmul-cublas");
    assertThat(FAMILY.kernels()).allSatisfy(k -> assertThat(k.family()).isEqualTo("matmul"));
  }

  @Test
  void program_sizeNotMultipleOf32_refusedNamingSize() {
    assertThatThrownBy(() -> FAMILY.program(kernelCase(Matmul.Variant.NAIVE), 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("size: must be a multiple of 32 in 32..32768, got 100");
  }

  @Test
  void program_unknownKernel_refusedNamingKernel() {
    KernelCase other = new KernelCase(new KernelSpec("transpose-naive", "transpose", List.of()), Map.of());
    assertThatThrownBy(() -> FAMILY.program(other, 64)).hasMessage("kernel: 'transpose-naive' is not a kernel of matmul");
  }

  @Test
  void defaultSize_h100_4096AndCpu512() {
    assertThat(FAMILY.defaultSize(kernelCase(Matmul.Variant.NAIVE), H100)).isEqualTo(4096);
    assertThat(FAMILY.defaultSize(kernelCase(Matmul.Variant.NAIVE), CPU)).isEqualTo(512);
  }

  @Test
  void defaultSize_smallBudget_halvedUntilThreeMatricesFit() {
    DeviceLimits small = new DeviceLimits(DeviceLimits.CUDA, 256L << 20, 100L << 20, 4L << 20, 20);
    long n = FAMILY.defaultSize(kernelCase(Matmul.Variant.CUBLAS), small);
    assertThat(n).isEqualTo(2048); // 3 x 16 MiB fits in 100 MiB free; 4096 needs 192 MiB
  }

  @Test
  void buffers_n4096_abInputsCOutput64MiBEach() {
    List<Buffer> buffers = program(Matmul.Variant.NAIVE, 4096).buffers();
    assertThat(buffers).extracting(Buffer::name).containsExactly("A", "B", "C");
    assertThat(buffers).extracting(Buffer::role)
        .containsExactly(Buffer.Role.INPUT, Buffer.Role.INPUT, Buffer.Role.OUTPUT);
    assertThat(buffers).allSatisfy(b -> assertThat(b.bytes()).isEqualTo(64L << 20));
  }

  @Test
  void steps_naive_2dBlockWithThreadXOnRows() {
    assertThat(program(Matmul.Variant.NAIVE, 4096).steps()).containsExactly(new Step.Kernel("busload_matmul_naive",
        Dim3.of(128, 128), Dim3.of(32, 32), 0, List.of(Arg.buf(0), Arg.buf(1), Arg.buf(2), Arg.i32(4096))));
  }

  @Test
  void steps_coalesced_1dBlockOf1024() {
    assertThat(program(Matmul.Variant.COALESCED, 4096).steps()).containsExactly(new Step.Kernel(
        "busload_matmul_coalesced", Dim3.of(128, 128), Dim3.of(1024), 0,
        List.of(Arg.buf(0), Arg.buf(1), Arg.buf(2), Arg.i32(4096))));
  }

  @Test
  void steps_rowAndColumnPerThread_gridCoversNByStrips() {
    for (Matmul.Variant variant : List.of(Matmul.Variant.ROW_PER_THREAD, Matmul.Variant.COL_PER_THREAD)) {
      Step.Kernel kernel = (Step.Kernel) program(variant, 4096).steps().getFirst();
      assertThat(kernel.entryPoint()).isEqualTo(variant.entryPoint());
      assertThat(kernel.grid()).isEqualTo(Dim3.of(16, 128)); // 4096 / 256 threads, 4096 / 32 strips
      assertThat(kernel.block()).isEqualTo(Dim3.of(256));
      assertThat(kernel.grid().count() * kernel.block().count() * Matmul.STRIP).isEqualTo(4096L * 4096);
    }
    Step.Kernel odd = (Step.Kernel) program(Matmul.Variant.ROW_PER_THREAD, 96).steps().getFirst();
    assertThat(odd.grid()).isEqualTo(Dim3.of(1, 3));
  }

  @Test
  void steps_cublas_oneSgemmOverTheSameBuffers() {
    assertThat(program(Matmul.Variant.CUBLAS, 4096).steps()).containsExactly(new Step.Sgemm(4096, 4096, 4096, 0, 1, 2));
  }

  @Test
  void traffic_n4096_twoNCubedFlopsAndThreeMatricesOfBytes() {
    for (Matmul.Variant variant : Matmul.Variant.values()) {
      assertThat(program(variant, 4096).traffic())
          .isEqualTo(new Traffic(2L * 4096 * 4096 * 4, 4096L * 4096 * 4, 2L * 4096 * 4096 * 4096));
    }
  }

  /**
   * Load A, load B, store C of each modelled variant: sectors and lines per request, and which load is the one
   * address every lane shares. Naive and row-per-thread walk A and C 32 sectors apart and share B; coalesced and
   * col-per-thread share A and read B and write C four sectors a warp.
   */
  static Stream<Arguments> modelledVariants() {
    return Stream.of(
        Arguments.of(Matmul.Variant.NAIVE, List.of(32, 1, 32), List.of(32, 1, 32), 1, "load B (broadcast)"),
        Arguments.of(Matmul.Variant.ROW_PER_THREAD, List.of(32, 1, 32), List.of(32, 1, 32), 1, "load B (broadcast)"),
        Arguments.of(Matmul.Variant.COALESCED, List.of(1, 4, 4), List.of(1, 1, 1), 0, "load A (broadcast)"),
        Arguments.of(Matmul.Variant.COL_PER_THREAD, List.of(1, 4, 4), List.of(1, 1, 1), 0, "load A (broadcast)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modelledVariants")
  void coalescing_modelledVariant_sectorsLinesAndTheBroadcastLoad(Matmul.Variant variant, List<Integer> sectors,
      List<Integer> lines, int broadcast, String broadcastAccess) {
    List<Coalescing> model = program(variant, 4096).coalescing();
    assertThat(model).extracting(Coalescing::sectorsPerRequest).containsExactlyElementsOf(sectors);
    assertThat(model).extracting(Coalescing::linesPerRequest).containsExactlyElementsOf(lines);
    assertThat(model).extracting(Coalescing::store).containsExactly(false, false, true);
    assertThat(model.get(broadcast).access()).isEqualTo(broadcastAccess);
    // 4 useful bytes per lane: 32 sectors a warp use an eighth of each, 4 sectors every byte.
    assertThat(model.get(1 - broadcast).efficiency()).isEqualTo(4.0 / sectors.get(1 - broadcast));
    assertThat(model.get(2).efficiency()).isEqualTo(4.0 / sectors.get(2));
  }

  @Test
  void coalescing_cublas_notModelled() {
    assertThat(program(Matmul.Variant.CUBLAS, 4096).coalescing()).isEmpty();
  }

  @Test
  void skipReason_cublasOnCpu_skippedWithReason() {
    assertThat(program(Matmul.Variant.CUBLAS, 512).skipReason(CPU))
        .contains("kernel: matmul-cublas needs cuBLAS on a CUDA device");
    assertThat(program(Matmul.Variant.CUBLAS, 4096).skipReason(H100)).isEmpty();
    assertThat(program(Matmul.Variant.NAIVE, 512).skipReason(CPU)).isEmpty();
  }

  @Test
  void fill_chunkAtOffset_sameValuesAsWholeBufferAndNeverZero() {
    Matmul.Case program = program(Matmul.Variant.NAIVE, 64);
    try (Arena arena = Arena.ofShared()) {
      MemorySegment whole = arena.allocate(64 * 64 * 4L);
      MemorySegment chunk = arena.allocate(100 * 4L);
      program.fill(1, 0, whole);
      program.fill(1, 1000, chunk);
      for (int i = 0; i < 100; i++) {
        assertThat(chunk.getAtIndex(JAVA_FLOAT, i)).isEqualTo(whole.getAtIndex(JAVA_FLOAT, 1000 + i));
      }
      for (long i = 0; i < 64 * 64; i++) {
        assertThat(whole.getAtIndex(JAVA_FLOAT, i)).isBetween(1f, 2f);
      }
      MemorySegment a = arena.allocate(64 * 4L);
      program.fill(0, 0, a);
      assertThat(a.getAtIndex(JAVA_FLOAT, 0)).isNotEqualTo(whole.getAtIndex(JAVA_FLOAT, 0)); // A and B differ
    }
    assertThatThrownBy(() -> program.fill(2, 0, MemorySegment.ofArray(new float[4])))
        .hasMessage("buffer: 2 is not an input of matmul-naive");
  }

  @Test
  void runOnCpu_everyKernelOnThreeThreads_passesCheckAndMatchesSerial() throws Exception {
    int n = 96;
    try (Arena arena = Arena.ofShared()) {
      List<MemorySegment> serial = Harness.prepare(program(Matmul.Variant.NAIVE, n), arena);
      program(Matmul.Variant.NAIVE, n).runOnCpu(serial, Parallel.serial());
      for (Matmul.Variant variant : List.of(Matmul.Variant.NAIVE, Matmul.Variant.COALESCED,
          Matmul.Variant.ROW_PER_THREAD, Matmul.Variant.COL_PER_THREAD)) {
        Matmul.Case program = program(variant, n);
        List<MemorySegment> buffers = Harness.prepare(program, arena);
        program.runOnCpu(buffers, Harness.threads(3));
        Check check = program.check(buffers);
        assertThat(check.passed()).as(variant + ": " + check.mismatches()).isTrue();
        assertThat(check.checked()).isEqualTo((long) n * n);
        assertThat(buffers.get(2).asByteBuffer()).as(variant.kernel()).isEqualTo(serial.get(2).asByteBuffer());
      }
    }
  }

  @Test
  void runOnCpu_cublas_refusedBecauseItIsSkippedOnCpus() {
    assertThatThrownBy(() -> program(Matmul.Variant.CUBLAS, 32).runOnCpu(List.of(), Parallel.serial()))
        .isInstanceOf(IllegalStateException.class);
  }
}
