package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.testsupport.FleetCerts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sweeps through a real Slurm: Debian's slurm-wlm and munge on this host ({@code deploy/slurm/local-slurm.sh}
 * installs them when missing and starts munged, slurmctld and slurmd), one CPU partition holding this host. The
 * coordinator, from the bundle, submits a job per node with {@code sbatch}; the job's ephemeral agent reaches the
 * bridge with mutual TLS and a certificate made for that job by the coordinator, which holds only the member CA.
 * Needs root (the daemons, and apt when they are missing): {@code ./busload test --full} runs it, as CI does.
 */
class SlurmIT extends FleetFaults {
  private static final Path SLURM_DIR = Path.of("target", "slurm").toAbsolutePath();
  private static final String PARTITION = "busload";
  private static String slurmConf;
  private static String node;
  private Path spool;

  @BeforeAll
  static void startSlurm() throws Exception {
    slurmConf = script("start").strip();
    node = command(List.of("hostname", "-s")).strip();
  }

  @AfterAll
  static void stopSlurm() throws Exception {
    script("stop");
  }

  @Override
  List<String> logs() {
    return List.of("coordinator");
  }

  @AfterEach
  void jobOutputs() throws IOException {
    if (spool == null || !Files.isDirectory(spool.resolve("jobs"))) {
      return;
    }
    try (Stream<Path> jobs = Files.list(spool.resolve("jobs"))) {
      for (Path job : jobs.toList()) {
        Path out = job.resolve("job.out");
        if (Files.exists(out)) {
          List<String> lines = Files.readAllLines(out);
          System.out.println("--- " + out + " (last 15 lines)");
          lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(System.out::println);
        }
      }
    }
  }

  /** A sweep that names the partition: a job per node, its agent measures every case and exits once idle. */
  @Test
  void sweepThroughSlurm_doneWithJobAndNodeOnEveryResult_agentLeavesWhenIdle() throws Exception {
    FaultRest api = startFleet("slurm-sweep");
    JsonNode sweep = api.post("/api/sweeps", "{\"suite\":\"stride\",\"devices\":[\"slurm:" + PARTITION + "\"],"
        + "\"options\":{\"elements\":\"65536\",\"stride\":\"1,2,4\"}}");
    String sweepId = sweep.path("id").asText();
    assertThat(sweep.path("runs").get(0).path("deviceId").asText()).isEqualTo(node + "/cpu");

    JsonNode done = awaitDone(api, sweepId, "the sweep through Slurm DONE");
    int total = done.path("runs").get(0).path("total").asInt();
    JsonNode results = api.get("/api/results?sweepId=" + sweepId + "&limit=1000");
    Tally tally = tally(api, sweepId);
    Set<String> jobs = new LinkedHashSet<>();
    for (JsonNode result : results) {
      JsonNode job = result.path("slurmJob");
      assertThat(job.path("node").asText()).as("node of result " + result.path("id")).isEqualTo(node);
      assertThat(job.path("jobId").asText()).as("job of result " + result.path("id")).matches("[0-9]+");
      jobs.add(job.path("jobId").asText());
    }
    String left = await("the job's agent gone once idle", 90, () -> squeue().isEmpty() ? "gone" : null);
    List<Path> jobDirs;
    try (Stream<Path> listed = Files.list(spool.resolve("jobs"))) {
      jobDirs = listed.toList();
    }
    for (Path jobDir : jobDirs) {
      assertThat(Files.getPosixFilePermissions(jobDir).toString()).as(jobDir + " owner-only")
          .isEqualTo("[OWNER_READ, OWNER_WRITE, OWNER_EXECUTE]");
      assertThat(jobDir.resolve("agent-" + node)).as("the job's certificate deleted when its agent ended")
          .doesNotExist();
    }
    summary("slurm-sweep", total, tally.rows(), total - tally.cases().size(), tally.duplicated(),
        fleet.alive("coordinator") ? 0 : 1, "partition " + PARTITION + ", job(s) " + jobs + " on " + node
            + ", the agent " + left + " after it was idle");
    assertThat(total).isEqualTo(4);
    assertThat(tally.cases()).hasSize(total);
    assertThat(tally.duplicated()).isZero();
    assertThat(jobs).hasSize(1);
  }

  /**
   * {@code scancel} of the job mid-run is an agent killed mid-run: the run turns INTERRUPTED with what it measured
   * kept, the next sweep queued on the node gets a new job, whose agent first sends what the cancelled one left in
   * the node's outbox: nothing lost, nothing twice.
   */
  @Test
  void jobCancelledMidRun_runInterrupted_nextJobResumesTheQueue_nothingLost() throws Exception {
    FaultRest api = startFleet("slurm-scancel");
    String devices = "\"devices\":[\"slurm:" + PARTITION + "\"]";
    String first = api.post("/api/sweeps", "{\"suite\":\"stride\"," + devices + ",\"options\":"
        + json(SLOW_SWEEP) + "}").path("id").asText();
    String next = api.post("/api/sweeps", "{\"suite\":\"stride\"," + devices + ",\"options\":"
        + json(Map.of("elements", "65536", "stride", "1,2")) + "}").path("id").asText();
    Tally before = awaitStored(api, first, 3);
    String jobId = api.get("/api/results?sweepId=" + first + "&limit=1").get(0).path("slurmJob").path("jobId")
        .asText();
    assertThat(squeue()).as("the job Slurm runs").contains(jobId);

    command(List.of("scancel", jobId));
    Instant cancelled = Instant.now();
    Path outbox = spool.resolve("outbox").resolve(node);
    await("the cancelled job gone", 60, () -> squeue().contains(jobId) ? null : true);
    Set<String> unacked = outboxFiles(outbox);
    String message = awaitInterrupted(api, first, 90);
    Duration toInterrupt = Duration.between(cancelled, Instant.now());
    Tally partial = tally(api, first);
    Set<String> measured = measured(partial, unacked);

    awaitDone(api, next, "the next sweep DONE through a new job");
    await("outbox drained", 120, () -> outboxFiles(outbox).isEmpty() ? true : null);
    Tally after = tally(api, first);
    Set<String> missing = new HashSet<>(measured);
    missing.removeAll(after.ids());
    Set<String> nextJobs = new HashSet<>();
    for (JsonNode result : api.get("/api/results?sweepId=" + next + "&limit=100")) {
      nextJobs.add(result.path("slurmJob").path("jobId").asText());
    }
    String finalState = sweepView(api, first).path("runs").get(0).path("state").asText();
    summary("slurm-scancel", measured.size(), after.rows(), missing.size(), after.duplicated(),
        fleet.alive("coordinator") ? 0 : 1, "job " + jobId + " cancelled after " + before.rows() + " results; "
            + unacked.size() + " left in the node's outbox; run INTERRUPTED " + toInterrupt.toMillis() / 1000.0
            + " s after the scancel (" + message + "); next sweep DONE through job(s) " + nextJobs);
    assertThat(missing).isEmpty();
    assertThat(after.duplicated()).isZero();
    assertThat(after.rows()).isEqualTo(measured.size()).isLessThan(SLOW_CASES);
    assertThat(finalState).as("the cancelled run stays interrupted").isEqualTo("INTERRUPTED");
    assertThat(nextJobs).as("a new job served the next sweep").hasSize(1).doesNotContain(jobId);
    assertThat(fleet.alive("coordinator")).isTrue();
  }

  /**
   * A coordinator with TLS whose Slurm jobs get certificates from a copy of the member CA alone (no root or
   * coordinator CA key), as deploy/README.md tells operators to give it.
   */
  private FaultRest startFleet(String name) throws Exception {
    Path work = work(name);
    fleet = new LocalFleet(work);
    Path certs = FleetCerts.issue(work.resolve("certs"), "--coordinator", "c1@127.0.0.1");
    Path issuer = Files.createDirectories(work.resolve("slurm-ca"));
    for (String file : List.of("fleet-id", "member-ca.p12", "coordinator-ca.pem")) {
      Files.copy(certs.resolve("ca").resolve(file), issuer.resolve(file), StandardCopyOption.COPY_ATTRIBUTES);
    }
    spool = work.resolve("spool");
    Map<String, String> env = new HashMap<>();
    env.put("BUSLOAD_TLS_DIR", certs.resolve("coordinator-c1").toString());
    env.put("SLURM_CONF", slurmConf);
    env.put("BUSLOAD_SLURM_SPOOL", spool.toString());
    env.put("BUSLOAD_SLURM_CA_DIR", issuer.toString());
    env.put("BUSLOAD_SLURM_CA_PASSWORD_FILE",
        certs.resolveSibling(certs.getFileName() + "-ca-password").toString());
    env.put("BUSLOAD_SLURM_BUNDLE", fleet.bundle.toAbsolutePath().toString());
    env.put("BUSLOAD_SLURM_IDLE_SECONDS", "10");
    fleet.startCoordinator("coordinator", fleet.data, fleet.coordinatorPort, List.of(), env);
    FaultRest api = FaultRest.loopback(fleet.coordinatorPort);
    await("coordinator up", 150, () -> api.get("/api/agents"));
    return api;
  }

  /** The ids of this coordinator's jobs Slurm holds now, in any state. */
  private static String squeue() throws Exception {
    return command(List.of("squeue", "--noheader", "--name=busload-agent-" + node, "--format=%i")).strip();
  }

  private static String script(String action) throws Exception {
    return command(List.of("sh", Path.of("slurm", "local-slurm.sh").toAbsolutePath().toString(), action,
        SLURM_DIR.toString()));
  }

  private static String command(List<String> command) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    if (slurmConf != null) {
      builder.environment().put("SLURM_CONF", slurmConf);
    }
    Process process = builder.start();
    byte[] out = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(10, TimeUnit.MINUTES)).as(command + " finished").isTrue();
    String text = new String(out, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(command + ": " + text).isZero();
    return text;
  }
}
