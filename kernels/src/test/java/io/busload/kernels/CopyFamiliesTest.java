package io.busload.kernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;

class CopyFamiliesTest {
  private static final long GIB = 1L << 30;
  private static final DeviceLimits H100 = new DeviceLimits(DeviceLimits.CUDA, 80 * GIB, 79 * GIB, 50L << 20, 132);
  private static final DeviceLimits SMALL_GPU = new DeviceLimits(DeviceLimits.CUDA, 4 * GIB, 3 * GIB, 4L << 20, 20);
  private static final DeviceLimits CPU = new DeviceLimits(DeviceLimits.CPU, 64 * GIB, 32 * GIB, 0, 16);

  private static KernelCase typed(String type, long stride) {
    KernelSpec spec = new TypedCopy().kernels().stream().filter(k -> k.name().equals("typed-copy-" + type)).findFirst()
        .orElseThrow();
    return new KernelCase(spec, Map.of("stride", stride));
  }

  private static KernelCase stride(long stride) {
    return new KernelCase(StridedCopy.STRIDE_COPY_FP32, Map.of("stride", stride));
  }

  private static KernelCase offset(long offset) {
    return new KernelCase(OffsetCopy.OFFSET_COPY_FP32, Map.of("offset", offset));
  }

  private static Program program(KernelCase kernelCase, long size) {
    return Catalog.familyOf(kernelCase).program(kernelCase, size);
  }

  private static Coalescing load(KernelCase kernelCase) {
    return program(kernelCase, 1024).coalescing().get(0);
  }

  // Coalescing models, from the warp simulator.

  @Test
  void strideCopy_fp32LoadAtStrideS_minOfFourSAndThirtyTwoSectors() {
    for (long s : StridedCopy.STRIDES) {
      assertThat(load(stride(s)).sectorsPerRequest()).as("stride %d", s).isEqualTo((int) Math.min(4 * s, 32));
      assertThat(program(stride(s), 1024).coalescing().get(1).sectorsPerRequest()).as("store").isEqualTo(4);
    }
  }

  @Test
  void strideCopy_strideThree_twelveSectorsNotAPowerOfTwo() {
    // Lanes 12 bytes apart: 32 x 12 = 384 bytes = 12 sectors, all touched.
    assertThat(load(stride(3)).sectorsPerRequest()).isEqualTo(12);
    assertThat(load(stride(5)).sectorsPerRequest()).isEqualTo(20);
  }

  @Test
  void offsetCopy_misalignedOffsets_fiveSectorsAlignedFour() {
    for (long o : OffsetCopy.OFFSETS) {
      int expected = o % 8 == 0 ? 4 : 5; // 128 bytes from a sector boundary: 4; from anywhere else: 5
      assertThat(load(offset(o)).sectorsPerRequest()).as("offset %d", o).isEqualTo(expected);
    }
    assertThat(load(offset(16)).linesPerRequest()).isEqualTo(2); // 64 bytes into a line: straddles two
    assertThat(load(offset(32)).linesPerRequest()).isEqualTo(1);
  }

  @Test
  void typedCopy_int8StrideOne_oneSectorPerRequest() {
    // 32 lanes x 1 byte = 32 bytes = one sector.
    assertThat(load(typed("int8", 1)).sectorsPerRequest()).isEqualTo(1);
    assertThat(load(typed("int8", 1)).efficiency()).isEqualTo(1.0);
  }

  @Test
  void typedCopy_float4StrideOne_sixteenSectorsPerRequest() {
    // 32 lanes x 16 bytes = 512 bytes = 16 sectors, 4 lines.
    Coalescing load = load(typed("float4", 1));
    assertThat(load.sectorsPerRequest()).isEqualTo(16);
    assertThat(load.linesPerRequest()).isEqualTo(4);
  }

  @Test
  void typedCopy_anyTypeAtStrideS_sectorsAreBytesSpannedUpToOnePerLane() {
    for (ElementType type : TypedCopy.TYPES) {
      for (long s : TypedCopy.STRIDES) {
        long spanned = 32 * s * type.bytes() / 32; // sectors the warp's span covers
        long perLane = 32L * ((type.bytes() + 31) / 32);
        int expected = (int) (s * type.bytes() >= 32 ? perLane : spanned);
        assertThat(load(typed(type.label(), s)).sectorsPerRequest()).as("%s stride %d", type, s).isEqualTo(expected);
      }
    }
  }

  @Test
  void vectorCopy_float2_eightSectorsPerRequestLoadAndStore() {
    KernelCase float2 = new KernelCase(new VectorCopy().kernels().get(1), Map.of());
    List<Coalescing> model = program(float2, 1024).coalescing();
    assertThat(model).extracting(Coalescing::sectorsPerRequest).containsExactly(8, 8);
  }

  @Test
  void memcpy_noWarpOfOurs_emptyModelAndOneDeviceCopyStep() {
    Program memcpy = program(new KernelCase(Catalog.MEMCPY_D2D, Map.of()), 1000);
    assertThat(memcpy.coalescing()).isEmpty();
    assertThat(memcpy.steps()).containsExactly(new Step.DeviceCopy(1, 0, 4000));
  }

  // Traffic, geometry and buffers.

  @Test
  void traffic_typedCopyFloat4_usefulBytesOnlyWhateverTheStride() {
    Program p = program(typed("float4", 32), 1000);
    assertThat(p.traffic()).isEqualTo(new Traffic(16_000, 16_000, 0));
    assertThat(p.buffers()).extracting(Buffer::elements).containsExactly(32_000L, 1000L);
    assertThat(p.deviceBytes()).isEqualTo(33 * 16_000L);
  }

  @Test
  void steps_strideCopy_fourElementsPerThreadRoundedUpAnd64BitArguments() {
    Step.Kernel kernel = (Step.Kernel) program(stride(3), 1025).steps().getFirst();
    assertThat(kernel.entryPoint()).isEqualTo("busload_stride_copy_f32");
    assertThat(kernel.grid()).isEqualTo(Dim3.of(2));
    assertThat(kernel.block()).isEqualTo(Dim3.of(256));
    assertThat(kernel.args()).containsExactly(Arg.buf(0), Arg.buf(1), Arg.i64(1025), Arg.i64(3));
  }

  @Test
  void steps_offsetCopy_passesTheOffset() {
    Step.Kernel kernel = (Step.Kernel) program(offset(31), 1L << 26).steps().getFirst();
    assertThat(kernel.entryPoint()).isEqualTo("busload_offset_copy_f32");
    assertThat(kernel.grid()).isEqualTo(Dim3.of(1 << 16));
    assertThat(kernel.args()).containsExactly(Arg.buf(0), Arg.buf(1), Arg.i64(1L << 26), Arg.i64(31));
  }

  // Default sizes: well above L2, within half the card.

  @Test
  void defaultSize_fp32StrideOneOnH100_twoToThe26AsMeasuredOnTheH200() {
    assertThat(program(stride(1), 1).getClass()).isEqualTo(CopyProgram.class);
    assertThat(new StridedCopy().defaultSize(stride(1), H100)).isEqualTo(1L << 26);
    assertThat(Catalog.CEILING.defaultSize(new KernelCase(Catalog.MEMCPY_D2D, Map.of()), H100)).isEqualTo(1L << 26);
  }

  @Test
  void defaultSize_everyCopyCaseOnH100_touchesFourL2sAndAllocatesAtMost4GiB() {
    for (String suite : List.of("stride", "offset", "types", "vector")) {
      for (KernelCase c : Catalog.cases(suite)) {
        long n = Catalog.familyOf(c).defaultSize(c, H100);
        Program p = program(c, n);
        // Bytes the sectors of every warp request carry (the model), or the copy's bytes for the ceiling.
        long touched = p.coalescing().isEmpty() ? p.traffic().bytes()
            : n / 32 * 32 * p.coalescing().stream().mapToLong(Coalescing::sectorsPerRequest).sum();
        assertThat(touched).as("%s", c).isGreaterThanOrEqualTo(200_000_000L); // H100 L2: 50 MB
        assertThat(p.deviceBytes()).as("%s", c).isLessThanOrEqualTo(CopyFamily.MAX_DEFAULT_ALLOCATION);
      }
    }
  }

  @Test
  void defaultSize_smallCard_halvedUntilHalfTheCardHoldsIt() {
    KernelCase c = typed("float4", 32);
    long n = new TypedCopy().defaultSize(c, SMALL_GPU);
    assertThat(program(c, n).deviceBytes()).isLessThanOrEqualTo(2 * GIB);
    assertThat(program(c, 2 * n).deviceBytes()).isGreaterThan(2 * GIB);
  }

  @Test
  void defaultSize_cpu_twoToThe20Fp32AsIssueTwo() {
    assertThat(new StridedCopy().defaultSize(stride(1), CPU)).isEqualTo(1L << 20);
  }

  @Test
  void skipReason_moreThanFree_namesSize() {
    Program p = program(stride(32), 1L << 30);
    assertThat(p.skipReason(SMALL_GPU)).hasValue("size: needs 132.0 GiB, 3.0 GiB free");
    assertThat(program(stride(1), 1024).skipReason(SMALL_GPU)).isEmpty();
  }

  // Invalid combinations name the field.

  @Test
  void program_strideOutOfRange_messageStartsWithStride() {
    assertThatThrownBy(() -> program(stride(0), 10)).hasMessage("stride: must be 1..1024 elements, got 0");
    assertThatThrownBy(() -> program(stride(2000), 10)).hasMessageStartingWith("stride: ");
  }

  @Test
  void program_offsetOutOfRange_messageStartsWithOffset() {
    assertThatThrownBy(() -> program(offset(-1), 10)).hasMessage("offset: must be 0..1024 elements, got -1");
  }

  @Test
  void program_sizeOutOfRange_messageStartsWithSize() {
    assertThatThrownBy(() -> program(stride(1), 0)).hasMessage("size: must be 1..2^40 output elements, got 0");
    assertThatThrownBy(() -> program(stride(1), (1L << 40) + 1)).hasMessageStartingWith("size: ");
  }

  // Reference checks and the CPU twin.

  @Test
  void runOnCpuThenCheck_everyCopyCase_passes() {
    for (String suite : List.of("stride", "offset", "types", "vector")) {
      for (KernelCase c : Catalog.cases(suite)) {
        Program p = program(c, 3001);
        try (Arena arena = Arena.ofConfined()) {
          List<MemorySegment> host = Harness.prepare(p, arena);
          p.runOnCpu(host, Parallel.serial());
          Check check = p.check(host);
          assertThat(check.passed()).as("%s: %s", c, check.mismatches()).isTrue();
          assertThat(check.checked()).isEqualTo(3001);
        }
      }
    }
  }

  @Test
  void check_poisonedOutput_failsEveryElementSayingNeverWritten() {
    Program p = program(typed("fp16", 2), 100);
    try (Arena arena = Arena.ofConfined()) {
      Check check = p.check(Harness.prepare(p, arena));
      assertThat(check.passed()).isFalse();
      assertThat(check.mismatchCount()).isEqualTo(100);
      assertThat(check.mismatches()).hasSize(Check.REPORTED);
      assertThat(check.mismatches().getFirst()).startsWith("out[0]: expected ").endsWith("(in[0]), got poison (never written)");
    }
  }

  @Test
  void check_wrongElementsFp32_firstMismatchesWithValuesAndBits() {
    Program p = program(stride(4), 1000);
    try (Arena arena = Arena.ofConfined()) {
      List<MemorySegment> host = Harness.prepare(p, arena);
      p.runOnCpu(host, Parallel.serial());
      host.get(1).setAtIndex(ValueLayout.JAVA_FLOAT, 7, 0.5f);
      for (long i = 950; i < 1000; i++) { // read at stride 1 instead of 4
        host.get(1).setAtIndex(ValueLayout.JAVA_FLOAT, i, host.get(0).getAtIndex(ValueLayout.JAVA_FLOAT, i));
      }
      Check check = p.check(host);
      assertThat(check.mismatchCount()).isEqualTo(51);
      assertThat(check.mismatches().getFirst()).startsWith("out[7]: expected ").endsWith("(in[28]), got 0.5 (0x3F000000)");
      assertThat(check.mismatches().get(1)).startsWith("out[950]: ");
    }
  }

  @Test
  void check_oneBitOffInFloat4_fails() {
    Program p = program(typed("float4", 1), 64);
    try (Arena arena = Arena.ofConfined()) {
      List<MemorySegment> host = Harness.prepare(p, arena);
      p.runOnCpu(host, Parallel.serial());
      long at = 13 * 16 + 12; // last component of element 13
      host.get(1).set(ValueLayout.JAVA_BYTE, at, (byte) (host.get(1).get(ValueLayout.JAVA_BYTE, at) ^ 1));
      Check check = p.check(host);
      assertThat(check.mismatchCount()).isEqualTo(1);
      assertThat(check.mismatches().getFirst()).startsWith("out[13]: expected (");
    }
  }

  @Test
  void fill_int8_neverZeroNorPoison() {
    MemorySegment chunk = MemorySegment.ofArray(new byte[100_000]);
    RandomFill.fill(ElementType.INT8, 7, 0, chunk);
    for (long i = 0; i < chunk.byteSize(); i++) {
      byte b = chunk.get(ValueLayout.JAVA_BYTE, i);
      assertThat(b).isBetween((byte) 1, (byte) 127);
    }
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(ElementType.class)
  void fill_chunksStartingMidWord_sameAsWhole(ElementType type) {
    // Narrow types take several elements from one mix: chunks that start inside a word must still agree.
    int count = 1001;
    Arena arena = Arena.ofAuto();
    MemorySegment whole = arena.allocate((long) count * type.bytes(), 64);
    MemorySegment parts = arena.allocate((long) count * type.bytes(), 64);
    RandomFill.fill(type, 11, 5, whole);
    long[] cuts = {0, 1, 3, 7, 8, 13, 500, 999, count};
    for (int c = 0; c + 1 < cuts.length; c++) {
      RandomFill.fill(type, 11, 5 + cuts[c], parts.asSlice(cuts[c] * type.bytes(), (cuts[c + 1] - cuts[c]) * type.bytes()));
    }
    assertThat(MemorySegment.mismatch(whole, 0, whole.byteSize(), parts, 0, parts.byteSize())).isEqualTo(-1L);
    for (long b = 0; b < whole.byteSize(); b += type.bytes()) {
      assertThat(whole.asSlice(b, type.bytes()).toArray(ValueLayout.JAVA_BYTE))
          .as("element %d is neither all zero nor poison", b / type.bytes())
          .isNotEqualTo(new byte[type.bytes()]).isNotEqualTo(filled(type.bytes(), Poison.BYTE));
    }
  }

  @Test
  void randomFloats_fillFromAnOddFirst_matchesGet() {
    RandomFloats floats = new RandomFloats(3);
    MemorySegment chunk = MemorySegment.ofArray(new float[101]);
    floats.fill(chunk, 7, 101);
    for (int i = 0; i < 101; i++) {
      assertThat(chunk.getAtIndex(ValueLayout.JAVA_FLOAT, i)).isEqualTo(floats.get(7 + i)).isBetween(1f, 2f);
    }
    assertThat(floats.get(0)).as("the two lanes of one mix differ").isNotEqualTo(floats.get(1));
  }

  private static byte[] filled(int length, byte value) {
    byte[] bytes = new byte[length];
    java.util.Arrays.fill(bytes, value);
    return bytes;
  }

  @Test
  void fill_chunked_sameAsWhole() {
    Program p = program(typed("fp64", 1), 1000);
    MemorySegment whole = MemorySegment.ofArray(new long[1000]);
    MemorySegment parts = MemorySegment.ofArray(new long[1000]);
    p.fill(0, 0, whole);
    p.fill(0, 0, parts.asSlice(0, 8 * 300));
    p.fill(0, 300, parts.asSlice(8 * 300));
    assertThat(whole.mismatch(parts)).isEqualTo(-1);
  }
}
