package io.busload.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import io.busload.agent.cpu.ShortCpuCases;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The command line in-process, on tiny sizes on the CPU (no GPU needed). */
@ExtendWith(ShortCpuCases.class)
class CliTest extends InProcessCli {
  @Test
  void runStride_cpuTinyJson_allNineRowsValid() throws Exception {
    int exit = run("run", "--suite", "stride", "--device", "cpu", "--format", "json", "--option", "elements=4096");

    assertThat(exit).as(err.toString()).isZero();
    List<KernelResult> results = JsonCodec.MAPPER.readValue(out.toString(), new TypeReference<>() {});
    assertThat(results).hasSize(9).allSatisfy(r -> {
      assertThat(r.valid()).as(r.kernel() + r.params() + r.mismatches()).isTrue();
      assertThat(r.bandwidth()).isPositive();
      assertThat(r.bytes()).isEqualTo(2 * 4096 * 4);
      assertThat(r.samples().size()).isGreaterThanOrEqualTo(3);
      assertThat(r.device().kind()).isEqualTo("cpu");
      assertThat(r.device().name()).startsWith("CPU: ");
      assertThat(r.fatbinHash()).hasSize(64);
      assertThat(r.params()).containsEntry("size", 4096);
    });
    assertThat(results).extracting(KernelResult::kernel).first().isEqualTo("memcpy-d2d");
  }

  /** Faults fail their own case cleanly and the run carries on to a valid copy; the JVM survives. */
  @Test
  void runFaults_cpu_oobRefusedHugeRefusedCopyValidExit1() throws Exception {
    int exit = run("run", "--suite", "faults", "--device", "cpu", "--format", "json", "--option", "size=4096");

    assertThat(exit).as("invalid results make the exit 1: " + err).isEqualTo(1);
    List<KernelResult> results = JsonCodec.MAPPER.readValue(out.toString(), new TypeReference<>() {});
    assertThat(results).extracting(KernelResult::kernel)
        .containsExactly("memcpy-d2d", "faults-oob-write", "faults-huge-alloc", "faults-copy");
    assertThat(results.get(1).valid()).isFalse();
    assertThat(results.get(1).mismatches().getFirst())
        .startsWith("cpu: invalid memory access refused (out of bounds): ");
    assertThat(results.get(2).valid()).isFalse();
    assertThat(results.get(2).mismatches().getFirst()).startsWith("cpu: cannot allocate 1024.0 TiB for the buffers ([in 1024.0 TiB, out 16.0 KiB])")
        .contains("only").contains("available");
    assertThat(results.get(3).valid()).as(results.get(3).mismatches().toString()).isTrue();
    assertThat(results.get(3).bandwidth()).isPositive();
    assertThat(results.get(0).valid()).isTrue();
    System.out.printf("faults on cpu: %s / %s / %s%n", results.get(1).mismatches().getFirst(),
        results.get(2).mismatches().getFirst(), results.get(3).valid() ? "faults-copy valid" : "faults-copy INVALID");
  }

  @Test
  void runStride_cpuTinyTable_showsCeilingAndMethod() {
    int exit = run("run", "--suite", "stride", "--device", "cpu", "--option", "elements=4096");

    assertThat(exit).as(err.toString()).isZero();
    assertThat(out.toString()).contains("of ceil.").contains("measured ceiling: ").contains("100.0%").contains("method:")
        .contains("System.nanoTime");
  }

  @Test
  void run_unknownSuite_exit2NamingIt() {
    assertThat(run("run", "--suite", "nope", "--device", "cpu")).isEqualTo(2);
    assertThat(err.toString()).contains("unknown suite 'nope'; known: coalescing, stride");
    assertThat(out.toString()).isEmpty();
  }

  /** An unknown option, a bad number of elements, a stride out of range: each refused by name before measuring. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      warp=3     | warp: unknown option; known: bytes, cache-study, elements, offset, peer, size, stride
      elements=-1 | elements: must be a positive integer
      stride=0   | stride: must be 1..1024 elements, got 0
      """)
  void run_badStrideOption_exit2NamingItBeforeMeasuring(String option, String refusal) {
    assertThat(run("run", "--suite", "stride", "--device", "cpu", "--option", option)).isEqualTo(2);
    assertThat(err.toString()).contains(refusal);
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void run_sizeLargerThanFreeMemory_exit2NamingSizeBeforeAllocating() {
    assertThat(run("run", "--suite", "stride", "--device", "cpu", "--option", "size=1099511627776")).isEqualTo(2);
    assertThat(err.toString()).contains("size: memcpy-d2d{} at size 1099511627776 needs 8.0 TiB, only ")
        .contains(" free on cpu");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void runTypes_cpuTinyOneStride_everyTypeValid() throws Exception {
    int exit = run("run", "--suite", "types", "--device", "cpu", "--format", "json", "--option", "size=3000",
        "--option", "stride=3");

    assertThat(exit).as(err.toString()).isZero();
    List<KernelResult> results = JsonCodec.MAPPER.readValue(out.toString(), new TypeReference<>() {});
    assertThat(results).extracting(KernelResult::kernel).containsExactly("memcpy-d2d", "typed-copy-int8",
        "typed-copy-fp16", "typed-copy-fp32", "typed-copy-fp64", "typed-copy-float2", "typed-copy-float4");
    assertThat(results).allSatisfy(r -> assertThat(r.valid()).as(r.kernel() + r.mismatches()).isTrue());
    assertThat(results.get(6).bytes()).isEqualTo(2 * 3000 * 16);
    assertThat(results.get(6).method()).contains("% of memcpy-d2d in this run").contains("not recorded");
  }

  @Test
  void run_unknownDevice_exit2NamingIt() {
    assertThat(run("run", "--suite", "stride", "--device", "cuda:7", "--option", "elements=4096")).isEqualTo(2);
    assertThat(err.toString()).contains("unknown device 'cuda:7'; known: ").contains("cpu");
    assertThat(out.toString()).isEmpty();
  }
}
