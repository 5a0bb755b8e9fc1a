package io.busload.coordinator.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlurmTest {
  @Test
  void gpus_gresAsSinfoPrintsIt_countsEveryGpuEntry() {
    assertThat(Slurm.gpus("(null)")).isZero();
    assertThat(Slurm.gpus("gpu:4")).isEqualTo(4);
    assertThat(Slurm.gpus("gpu:a100:8(S:0-1)")).isEqualTo(8);
    assertThat(Slurm.gpus("gpu:a100:2,gpu:t4:1,mps:200")).isEqualTo(3);
  }

  @Test
  void node_withAndWithoutGpus_devicesNamedAsTheAgentNamesThem() {
    assertThat(new Slurm.Node("n1", 2).deviceIds()).containsExactly("n1/cuda:0", "n1/cuda:1");
    assertThat(new Slurm.Node("n1", 2).deviceArguments()).containsExactly("cuda:0", "cuda:1");
    assertThat(new Slurm.Node("n2", 0).deviceIds()).containsExactly("n2/cpu");
  }

  @Test
  void validName_shellAndOptionCharacters_refused() {
    assertThat(Slurm.validName("gpu-a100.long_1")).isTrue();
    for (String bad : List.of("", "-p", "a b", "a;rm", "a/b", "a'b", "x".repeat(101))) {
      assertThat(Slurm.validName(bad)).as(bad).isFalse();
    }
  }

  @Test
  void script_nodeWithGpus_agentUntilIdleOnExactlyItsDevices_certificateDeletedAfter() {
    SlurmSettings settings = new SlurmSettings(Path.of("/spool"), Path.of("/ca"), Path.of("/ca-password"),
        Path.of("/opt/busload"), "/usr/lib/jvm/jdk25/bin/java", null, 60, 30);
    SlurmJobs jobs = new SlurmJobs(null, null, null, null, settings, new Slurm(), () -> "10.0.0.10:7704", () -> true);

    String script = jobs.script(new Slurm.Node("n1", 2), "10.0.0.10:7704", Path.of("/spool/jobs/j1/agent-n1"));

    assertThat(script).startsWith("#!/bin/sh\n")
        .contains("export BUSLOAD_BRIDGE='10.0.0.10:7704'\n", "export BUSLOAD_OUTBOX='/spool/outbox/n1'\n",
            "export BUSLOAD_TLS_DIR='/spool/jobs/j1/agent-n1'\n")
        .contains("'/usr/lib/jvm/jdk25/bin/java' @'/opt/busload/jvm.options' -cp '/opt/busload/agent.jar:/opt/busload/lib/*'"
            + " io.busload.agent.Main agent --until-idle=30 --device 'cuda:0' --device 'cuda:1'\n")
        .endsWith("rm -rf '/spool/jobs/j1/agent-n1'\nexit $status\n");
  }

  @Test
  void submitCommand_gpuNode_exportsNothingOfTheCoordinator_pinnedToTheNodeWithAllItsGpus() {
    List<String> command = Slurm.submitCommand("gpu", new Slurm.Node("n1", 4), Path.of("/spool/jobs/j1/job.sh"),
        Path.of("/spool/jobs/j1/job.out"), 60);

    assertThat(command).containsExactly("sbatch", "--parsable", "--export=NONE", "--job-name=busload-agent-n1",
        "--partition=gpu", "--nodelist=n1", "--nodes=1", "--ntasks=1", "--time=60",
        "--output=/spool/jobs/j1/job.out", "--requeue", "--gres=gpu:4", "/spool/jobs/j1/job.sh");
  }
}
