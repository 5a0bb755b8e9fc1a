package io.busload.agent;

import io.busload.agent.cluster.AgentConfig;
import io.busload.agent.cluster.AgentVerticle;
import io.busload.agent.cluster.BridgeLink;
import io.busload.agent.cluster.BridgeSettings;
import io.busload.agent.cluster.Outbox;
import io.busload.agent.device.Device;
import io.busload.agent.device.Devices;
import io.busload.kernels.Fatbin;
import io.busload.protocol.SlurmJob;
import io.busload.protocol.cluster.Cluster;
import io.busload.protocol.cluster.ClusterSettings;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Joins the fleet and serves runs until stopped: through a coordinator's bridge, or as a cluster member
 * when {@code BUSLOAD_TRANSPORT=cluster}.
 */
@Command(name = "agent", mixinStandardHelpOptions = true, description = "Join the fleet and serve runs.")
final class AgentCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(AgentCommand.class);

  @Spec
  CommandSpec spec;

  @Option(names = "--device", description = "cpu or cuda:N, repeatable (default: every GPU, else the CPU)")
  List<String> devices;

  @Option(names = "--until-idle", arity = "0..1", fallbackValue = "30", paramLabel = "SECONDS",
      description = "Exit once no run is active, every result is acked and no run came for SECONDS (default 30 when"
          + " given without a value): the ephemeral agent of a Slurm job. Without it the agent serves until stopped.")
  Integer untilIdle;

  @Override
  public Integer call() throws Exception {
    if (untilIdle != null && untilIdle < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--until-idle: at least 1 second, not " + untilIdle);
    }
    java.util.Optional<SlurmJob> job;
    try {
      job = SlurmJob.fromEnvironment(System.getenv());
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    // In a job the node's Slurm name is the host's name: the coordinator queued the runs on devices named after it.
    String host = job.map(SlurmJob::node).orElseGet(Devices::hostName);
    Devices discovered = Devices.discover(host);
    List<Device> served;
    try {
      served = devices == null || devices.isEmpty() ? discovered.defaults()
          : devices.stream().map(discovered::byShortId).distinct().toList();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    java.util.Optional<BridgeSettings> bridge;
    String agentId;
    List<String> labels;
    try {
      bridge = BridgeSettings.fromEnvironment(System.getenv());
      agentId = bridge.isPresent() ? bridge.get().agentId(System.getenv(), host)
          : AgentConfig.agentId(System.getenv(), host);
      labels = AgentConfig.labels(System.getenv());
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    AgentConfig config = AgentConfig.standard(agentId, host, AgentVersion.get(), Fatbin.sha256(), served,
        Outbox.directory(System.getenv(), agentId)).withLabels(labels);
    AgentVerticle verticle;
    Vertx vertx;
    if (bridge.isPresent()) {
      // Not a member; one connection to a coordinator's bridge. Codecs stay unregistered: the bridge
      // carries JSON, and nothing else in this process uses the event bus.
      LOG.info("agent {} reaching the fleet through the agent bridge ({}) at {} with {}; labels {}; outbox {}",
          config.agentId(), bridge.get().tls() == null ? "plain" : "mutual TLS", bridge.get().endpoints(),
          served.stream().map(d -> d.info().name()).toList(), config.labels(), config.outbox());
      vertx = Vertx.vertx();
      io.busload.protocol.bridge.BridgeClient client = bridge.get().client(vertx);
      verticle = new AgentVerticle(config, v -> new BridgeLink(client).start()).inSlurmJob(job.orElse(null));
      vertx.deployVerticle(verticle).await(60, TimeUnit.SECONDS);
      if (bridge.get().tls() != null) {
        // Renewed certificates copied into the member directory serve the next connection, with no restart.
        io.busload.protocol.cluster.TlsReload.watch(vertx, bridge.get().tls(), ClusterSettings.AGENT,
            java.time.Duration.ofSeconds(5), renewed -> client.updateTls(renewed.bridgeClientSsl()));
      }
    } else {
      ClusterSettings settings = ClusterSettings.fromEnvironment(System.getenv(), ClusterSettings.AGENT, 7703);
      LOG.info("agent {} joining cluster '{}' on {} (event bus port {}) with {}; labels {}; outbox {}",
          config.agentId(), settings.clusterName(), settings.host(), settings.eventBusPort(),
          served.stream().map(d -> d.info().name()).toList(), config.labels(), config.outbox());
      vertx = Cluster.join(settings, java.time.Duration.ofSeconds(3), java.time.Duration.ofDays(365));
      verticle = new AgentVerticle(config).inSlurmJob(job.orElse(null));
      vertx.deployVerticle(verticle).await(60, TimeUnit.SECONDS);
    }

    job.ifPresent(j -> LOG.info("agent {} runs in Slurm job {} on node {}: every result carries both", config.agentId(),
        j.jobId(), j.node()));
    CountDownLatch stopped = new CountDownLatch(1);
    if (untilIdle != null) {
      // A run requested after the last check is never accepted: it stays queued at the coordinator for the next agent.
      verticle.whenIdleFor(java.time.Duration.ofSeconds(untilIdle), () -> {
        LOG.info("idle for {} s with every result acked: leaving the fleet", untilIdle);
        vertx.close().onComplete(closed -> stopped.countDown());
      });
    }
    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> {
      try {
        vertx.close().await(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("cluster leave did not finish cleanly: {}", e.toString());
      }
      stopped.countDown();
    }));
    stopped.await();
    return 0;
  }

}
