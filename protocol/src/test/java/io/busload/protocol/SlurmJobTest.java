package io.busload.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SlurmJobTest {
  @Test
  void fromEnvironment_jobAndNodeSet_theJob() {
    assertThat(SlurmJob.fromEnvironment(Map.of("SLURM_JOB_ID", "4711", "SLURMD_NODENAME", "gpu-07")))
        .contains(new SlurmJob("4711", "gpu-07"));
  }

  @Test
  void fromEnvironment_arrayTask_jobIdWithTheTask() {
    assertThat(SlurmJob.fromEnvironment(Map.of("SLURM_JOB_ID", "4713", "SLURM_ARRAY_JOB_ID", "4711",
        "SLURM_ARRAY_TASK_ID", "2", "SLURMD_NODENAME", "n1"))).contains(new SlurmJob("4711_2", "n1"));
  }

  @Test
  void fromEnvironment_outsideAJobOrHalfSet_empty() {
    assertThat(SlurmJob.fromEnvironment(Map.of())).isEmpty();
    assertThat(SlurmJob.fromEnvironment(Map.of("SLURM_JOB_ID", "1"))).isEmpty();
  }

  @Test
  void fromEnvironment_notAnId_refusedNamingTheVariables() {
    assertThatThrownBy(() -> SlurmJob.fromEnvironment(Map.of("SLURM_JOB_ID", "1; rm", "SLURMD_NODENAME", "n1")))
        .hasMessageStartingWith("SLURM_JOB_ID/SLURMD_NODENAME: slurmJob.jobId");
  }

  @Test
  void kernelResult_withSlurmJob_carriedOnTheWire_absentWithout() throws Exception {
    KernelResult plain = JsonCodecTest.result(true);
    KernelResult inJob = plain.withSlurmJob(new SlurmJob("4711", "n1"));

    assertThat(JsonCodec.MAPPER.writeValueAsString(plain)).doesNotContain("slurmJob");
    String wire = JsonCodec.MAPPER.writeValueAsString(inJob);
    assertThat(wire).contains("\"slurmJob\":{\"jobId\":\"4711\",\"node\":\"n1\"}");
    assertThat(JsonCodec.MAPPER.readValue(wire, KernelResult.class).slurmJob()).isEqualTo(new SlurmJob("4711", "n1"));
    assertThat(inJob.withRun("r2", "s2").slurmJob()).isEqualTo(inJob.slurmJob());
  }
}
