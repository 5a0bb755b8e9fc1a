package io.busload.kernels.families;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.kernels.Buffer;
import io.busload.kernels.Buffer.Memory;
import io.busload.kernels.Catalog;
import io.busload.kernels.Check;
import io.busload.kernels.DeviceLimits;
import io.busload.kernels.Fatbin;
import io.busload.kernels.Harness;
import io.busload.kernels.KernelCase;
import io.busload.kernels.KernelSpec;
import io.busload.kernels.Parallel;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import io.busload.kernels.SuiteOptions;
import io.busload.kernels.Traffic;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The interconnect suite: its catalog, its buffers on either side of a link, its checks and its pairs. */
class InterconnectTest {
  private static final Interconnect FAMILY = new Interconnect();
  private static final DeviceLimits ONE_GPU = new DeviceLimits("cuda", 80L << 30, 79L << 30, 50L << 20, 132);
  private static final DeviceLimits CPU = new DeviceLimits("cpu", 64L << 30, 32L << 30, 0, 16);

  private static DeviceLimits gpu(int ordinal, int devices) {
    return new DeviceLimits("cuda", 80L << 30, 79L << 30, 50L << 20, 132, ordinal, devices);
  }

  private static KernelCase kernelCase(String kernel, Map<String, Long> params) {
    KernelSpec spec = FAMILY.kernels().stream().filter(k -> k.name().equals(kernel)).findFirst().orElseThrow();
    return new KernelCase(spec, params);
  }

  private static Program program(String kernel, long bytes) {
    return FAMILY.program(kernelCase(kernel, Map.of(SuiteOptions.BYTES, bytes)), bytes);
  }

  private static Program pair(String kernel, long peer, long bytes) {
    return FAMILY.program(kernelCase(kernel, Map.of(SuiteOptions.BYTES, bytes, SuiteOptions.PEER, peer)), bytes);
  }

  @Test
  void catalog_interconnectSuite_hostLinksSweep4KiBTo1GiBOwnSuiteOnly() {
    assertThat(Catalog.suite(Interconnect.NAME)).extracting(KernelSpec::name).containsExactly("memcpy-d2d",
        "h2d-ce-pinned", "d2h-ce-pinned", "bidir-ce-pinned", "h2d-ce-pageable", "d2h-ce-pageable",
        "bidir-ce-pageable", "h2d-sm-mapped", "d2h-sm-mapped", "bidir-sm-mapped", "p2p-ce-write", "p2p-ce-bidir",
        "p2p-sm-write", "p2p-sm-bidir");
    assertThat(Interconnect.HOST_BYTES).first().isEqualTo(4096L);
    assertThat(Interconnect.HOST_BYTES).last().isEqualTo(1L << 30);
    assertThat(Interconnect.HOST_BYTES).hasSize(10);
    assertThat(Catalog.suite(Catalog.COALESCING)).extracting(KernelSpec::family).doesNotContain(Interconnect.NAME);
    assertThat(Catalog.cases(Interconnect.NAME)).hasSize(1 + 9 * 10 + 4);
  }

  @Test
  void buffers_eachVariant_liveOnEitherSideOfItsLink() {
    assertThat(program("h2d-ce-pinned", 4096).buffers()).extracting(Buffer::memory)
        .containsExactly(Memory.PINNED, Memory.DEVICE);
    assertThat(program("d2h-ce-pageable", 4096).buffers()).extracting(Buffer::memory)
        .containsExactly(Memory.DEVICE, Memory.PAGEABLE);
    assertThat(program("bidir-sm-mapped", 4096).buffers()).extracting(Buffer::memory)
        .containsExactly(Memory.MAPPED, Memory.DEVICE, Memory.DEVICE, Memory.MAPPED);
    assertThat(pair("p2p-ce-bidir", 1, 4096).buffers()).extracting(Buffer::memory)
        .containsExactly(Memory.DEVICE, Memory.PEER, Memory.PEER, Memory.DEVICE);
    assertThat(pair("p2p-sm-write", 1, 4096).peerDevice()).isEqualTo(1);
    assertThat(program("h2d-ce-pinned", 4096).peerDevice()).isEqualTo(-1);
  }

  @Test
  void steps_copyEngineBothWays_twoCopiesAtOnce_smBothWays_oneKernelOfEvenGrid() {
    assertThat(program("bidir-ce-pinned", 1 << 20).steps()).containsExactly(new Step.Concurrent(
        List.of(new Step.Copy(1, 0, 1 << 20), new Step.Copy(3, 2, 1 << 20))));
    Step.Kernel both = (Step.Kernel) program("bidir-sm-mapped", 1L << 30).steps().getFirst();
    assertThat(both.entryPoint()).isEqualTo("busload_interconnect_copy2_v4");
    assertThat(both.grid().x()).isEqualTo(2 * Interconnect.MAX_BLOCKS);
    Step.Kernel small = (Step.Kernel) program("h2d-sm-mapped", 4096).steps().getFirst();
    assertThat(small.grid().x()).isEqualTo(1);
  }

  @Test
  void traffic_countsBytesCrossingTheLinkFromThisDevicesSide() {
    assertThat(program("h2d-ce-pinned", 4096).traffic()).isEqualTo(new Traffic(0, 4096, 0));
    assertThat(program("d2h-sm-mapped", 4096).traffic()).isEqualTo(new Traffic(4096, 0, 0));
    assertThat(program("bidir-ce-pageable", 4096).traffic()).isEqualTo(new Traffic(4096, 4096, 0));
    assertThat(pair("p2p-ce-write", 1, 4096).traffic()).isEqualTo(new Traffic(4096, 0, 0));
    assertThat(program("bidir-ce-pageable", 4096).bytesCounted()).contains("both directions added");
  }

  @Test
  void everyVariant_copiedBetweenThreads_passesItsCheck() {
    for (Interconnect.Variant variant : Interconnect.VARIANTS) {
      Program program = variant.peer() ? pair(variant.kernel(), 1, 65536) : program(variant.kernel(), 65536);
      Check check = Harness.runAndCheck(program);
      assertThat(check.passed()).as("%s: %s", variant.kernel(), check.mismatches()).isTrue();
      assertThat(check.checked()).isEqualTo((variant.direction() == Interconnect.Direction.BIDIR ? 2 : 1) * 16384L);
    }
  }

  @Test
  void check_copyThatDidNotLand_namesTheFirstUnwrittenElement() {
    Program program = program("bidir-ce-pinned", 4096);
    try (Arena arena = Arena.ofConfined()) {
      List<MemorySegment> buffers = Harness.prepare(program, arena);
      program.runOnCpu(buffers, Parallel.serial());
      buffers.get(3).asSlice(400, 4).fill((byte) 0xFF);

      Check check = program.check(buffers);

      assertThat(check.passed()).isFalse();
      assertThat(check.mismatchCount()).isEqualTo(1);
      assertThat(check.mismatches()).containsExactly(
          "dst1[100]: expected " + buffers.get(2).getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, 100)
              + ", got poison (never written)");
    }
  }

  @Test
  void casesOn_everyPeerOnFourGpus_oneCasePerOtherGpu() {
    KernelCase every = kernelCase("p2p-ce-write", Map.of(SuiteOptions.PEER, -1L, SuiteOptions.BYTES, 4096L));

    assertThat(FAMILY.casesOn(every, gpu(1, 4))).extracting(c -> c.param(SuiteOptions.PEER))
        .containsExactly(0L, 2L, 3L);
    assertThat(FAMILY.casesOn(every, ONE_GPU)).containsExactly(every);
  }

  @Test
  void skipReason_singleGpuHost_saysThereIsNoPair() {
    assertThat(pair("p2p-sm-bidir", -1, 4096).skipReason(ONE_GPU))
        .hasValue("peer: no GPU pair on this host: cuda:0 is its only cuda device");
    assertThat(pair("p2p-ce-write", -1, 4096).skipReason(CPU))
        .hasValue("peer: no GPU pair on this host: cpu is its only cpu device");
    assertThat(program("h2d-ce-pinned", 4096).skipReason(CPU)).isEmpty();
  }

  @Test
  void skipReason_deviceIndexThatDoesNotExist_namesIt() {
    assertThat(pair("p2p-ce-write", 5, 4096).skipReason(gpu(0, 2)))
        .hasValue("peer: device cuda:5 does not exist; this host has cuda:0..cuda:1");
    assertThat(pair("p2p-ce-write", 0, 4096).skipReason(gpu(0, 2))).get().asString()
        .startsWith("peer: cuda:0 is the device running the case");
    assertThat(pair("p2p-ce-write", 1, 4096).skipReason(gpu(0, 2))).isEmpty();
    assertThat(pair("p2p-ce-write", 3, 4096).skipReason(ONE_GPU))
        .hasValue("peer: device cuda:3 does not exist; this host has only cuda:0");
    assertThat(pair("p2p-ce-write", 1, 4096).skipReason(CPU))
        .hasValue("peer: device cuda:1 does not exist; this host has only cpu");
  }

  @Test
  void program_badSizes_failNamingTheField() {
    assertThatThrownBy(() -> FAMILY.program(kernelCase("h2d-ce-pinned", Map.of(SuiteOptions.BYTES, 4096L)), 8192))
        .hasMessageStartingWith("size: suite interconnect takes its sizes from the bytes axis");
    assertThatThrownBy(() -> program("h2d-ce-pinned", 4100)).hasMessageStartingWith("bytes: must be a multiple of 16");
    assertThatThrownBy(() -> program("h2d-ce-pinned", 2L << 30)).hasMessageStartingWith("bytes:");
    assertThat(SuiteOptions.parse(Map.of("bytes", "4096,65536", "peer", "1")).axes())
        .containsEntry("bytes", List.of(4096L, 65536L)).containsEntry("peer", List.of(1L));
    assertThatThrownBy(() -> SuiteOptions.parse(Map.of("peer", "-2"))).hasMessageStartingWith("peer:");
  }

  @Test
  void entryPoints_declaredInInterconnectCuAndInTheFatbin() throws IOException {
    String source = Files.readString(Path.of("src/main/cuda/interconnect.cu"));
    String fatbin = new String(Fatbin.bytes(), StandardCharsets.ISO_8859_1);
    for (String kernel : List.of("h2d-sm-mapped", "bidir-sm-mapped")) {
      String entryPoint = ((Step.Kernel) program(kernel, 4096).steps().getFirst()).entryPoint();
      assertThat(source).contains("extern \"C\" __global__ void " + entryPoint + "(");
      assertThat(fatbin).contains(entryPoint);
    }
  }
}
