package io.busload.coordinator.fleet;

import io.busload.coordinator.store.SweepStore;
import io.busload.protocol.pki.FleetCa;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings an agent to every Slurm node that has runs queued and none online: one job per node, submitted with
 * {@code sbatch}, whose script starts an ephemeral agent ({@code busload agent --until-idle}) with a certificate made
 * for that job. The agent takes the node's queued runs through the bridge like any agent, and exits when they are
 * done. A job cancelled or preempted mid-run is an agent killed mid-run ({@link RunQueues#expire}): its run turns
 * INTERRUPTED, its unacked results wait in the node's outbox, and the next job, submitted when the node again has
 * queued runs and no agent, sends them.
 *
 * <p>Checked every {@link #EVERY} on the coordinator verticle's event loop, by the leading coordinator only; Slurm's
 * commands and the certificate run on a worker thread. What the jobs are is asked of Slurm each time (by job name),
 * so a coordinator that restarts or takes over submits no second job beside one that is still pending.
 */
public final class SlurmJobs {
  private static final Logger LOG = LoggerFactory.getLogger(SlurmJobs.class);
  static final Duration EVERY = Duration.ofSeconds(5);
  /** A job's certificate outlives its time limit by this much: a job is killed at its limit, never later. */
  static final Duration CERTIFICATE_MARGIN = Duration.ofMinutes(15);

  private final Vertx vertx;
  private final SweepStore sweeps;
  private final Fleet fleet;
  private final Clock clock;
  private final SlurmSettings settings;
  private final Slurm slurm;
  private final Supplier<String> bridge;
  private final BooleanSupplier leads;
  private FleetCa issuer;
  private boolean checking;
  private Instant next = Instant.MIN;

  /**
   * @param bridge this coordinator's bridge as the nodes reach it ({@code host:port}), asked when a job is made
   */
  public SlurmJobs(Vertx vertx, SweepStore sweeps, Fleet fleet, Clock clock, SlurmSettings settings, Slurm slurm,
      Supplier<String> bridge, BooleanSupplier leads) {
    this.vertx = vertx;
    this.sweeps = sweeps;
    this.fleet = fleet;
    this.clock = clock;
    this.settings = settings;
    this.slurm = slurm;
    this.bridge = bridge;
    this.leads = leads;
  }

  /** Called on every coordinator tick; does its work every {@link #EVERY} at most, one check at a time. */
  public void tick(Instant now) {
    if (checking || now.isBefore(next) || !leads.getAsBoolean()) {
      return;
    }
    checking = true;
    next = now.plus(EVERY);
    vertx.executeBlocking(sweeps::queuedSlurmNodes, false).compose(queues -> {
      Instant at = clock.instant();
      List<SweepStore.SlurmQueue> waiting = queues.stream().filter(q -> !fleet.online(q.node(), at)).toList();
      if (waiting.isEmpty()) {
        return Future.succeededFuture();
      }
      String reach = bridge.get();
      return vertx.executeBlocking(() -> {
        for (SweepStore.SlurmQueue queue : waiting) {
          try {
            submitIfNone(queue, reach);
          } catch (RuntimeException | IOException e) {
            LOG.error("node {} (partition {}): cannot submit a job for its {} queued device(s): {}", queue.node(),
                queue.partition(), queue.deviceIds().size(), e.getMessage());
          }
        }
        return null;
      }, false);
    }).onComplete(done -> {
      checking = false;
      if (done.failed()) {
        LOG.error("cannot read the runs queued for Slurm nodes", done.cause());
      }
    });
  }

  /** On a worker thread: a job for {@code queue}'s node unless Slurm already holds one. */
  private void submitIfNone(SweepStore.SlurmQueue queue, String reach) throws IOException {
    if (!Slurm.validName(queue.node()) || !Slurm.validName(queue.partition())) {
      throw new IllegalArgumentException("not a Slurm name: node '" + queue.node() + "', partition '"
          + queue.partition() + "'");
    }
    var pending = slurm.activeJob(queue.node());
    if (pending.isPresent()) {
      LOG.debug("node {}: job {} is already there for its queued runs", queue.node(), pending.get());
      return;
    }
    int gpus = (int) queue.deviceIds().stream().filter(id -> id.startsWith(queue.node() + "/cuda:")).count();
    Slurm.Node node = new Slurm.Node(queue.node(), gpus);
    Path jobDir = settings.spool().resolve("jobs").resolve(queue.node() + "-" + UUID.randomUUID());
    Files.createDirectories(jobDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path tls = null;
    if (settings.caDir() != null) {
      FleetCa.Member member = issuer().issue("agent", node.name(), List.of(),
          Duration.ofMinutes(settings.minutes()).plus(CERTIFICATE_MARGIN));
      tls = FleetCa.write(member, jobDir);
    }
    Path script = jobDir.resolve("job.sh");
    Files.writeString(script, script(node, reach, tls), StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    String jobId = slurm.submit(queue.partition(), node, script, jobDir.resolve("job.out"), settings.minutes());
    LOG.info("node {}: Slurm job {} submitted in partition {} for its queued runs on {} ({}certificate valid {} min)",
        node.name(), jobId, queue.partition(), queue.deviceIds(), tls == null ? "no " : "a ",
        settings.minutes() + CERTIFICATE_MARGIN.toMinutes());
  }

  private FleetCa issuer() throws IOException {
    if (issuer == null) {
      char[] password = Files.readString(settings.caPasswordFile(), StandardCharsets.UTF_8).strip().toCharArray();
      issuer = FleetCa.loadMemberIssuer(settings.caDir(), password);
    }
    return issuer;
  }

  /**
   * The job: the bundle's agent with the job's certificate, serving exactly the devices the runs were queued on,
   * until idle; its certificate deleted when the agent ends. Only what it sets reaches the agent ({@code sbatch
   * --export=NONE}) beside Slurm's own variables, which the agent reads for the job's id and node.
   */
  String script(Slurm.Node node, String reach, Path tls) {
    Path outbox = settings.spool().resolve("outbox").resolve(node.name());
    StringBuilder s = new StringBuilder("#!/bin/sh\n")
        .append("# Written by the Busload coordinator: an ephemeral agent for the runs queued on ").append(node.name())
        .append(".\n")
        .append("export BUSLOAD_TRANSPORT=bridge\n")
        .append("export BUSLOAD_BRIDGE=").append(quoted(reach)).append('\n')
        .append("export BUSLOAD_OUTBOX=").append(quoted(outbox.toString())).append('\n');
    if (tls != null) {
      s.append("export BUSLOAD_TLS_DIR=").append(quoted(tls.toString())).append('\n');
    }
    s.append(quoted(settings.java())).append(" @").append(quoted(settings.bundle().resolve("jvm.options").toString()))
        .append(" -cp ").append(quoted(settings.bundle().resolve("agent.jar") + ":" + settings.bundle().resolve("lib")
            + "/*"))
        .append(" io.busload.agent.Main agent --until-idle=").append(settings.idleSeconds());
    node.deviceArguments().forEach(d -> s.append(" --device ").append(quoted(d)));
    s.append("\nstatus=$?\n");
    if (tls != null) {
      s.append("rm -rf ").append(quoted(tls.toString())).append('\n');
    }
    return s.append("exit $status\n").toString();
  }

  private static String quoted(String value) {
    if (value.contains("'") || value.contains("\n")) {
      throw new IllegalArgumentException("cannot put '" + value + "' in a job script: it holds a quote or a newline");
    }
    return "'" + value + "'";
  }
}
