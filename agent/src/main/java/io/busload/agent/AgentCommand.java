package io.busload.agent;

import io.busload.agent.cluster.AgentConfig;
import io.busload.agent.cluster.AgentVerticle;
import io.busload.agent.cluster.BridgeLink;
import io.busload.agent.cluster.BridgeSettings;
import io.busload.agent.cluster.Outbox;
import io.busload.agent.device.Device;
import io.busload.agent.device.Devices;
import io.busload.kernels.Fatbin;
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

  @Override
  public Integer call() throws Exception {
    Devices discovered = Devices.discover();
    List<Device> served;
    try {
      served = devices == null || devices.isEmpty() ? discovered.defaults()
          : devices.stream().map(discovered::byShortId).distinct().toList();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    String host = Devices.hostName();
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
    Vertx vertx;
    if (bridge.isPresent()) {
      // Not a member; one connection to a coordinator's bridge. Codecs stay unregistered: the bridge
      // carries JSON, and nothing else in this process uses the event bus.
      LOG.info("agent {} reaching the fleet through the agent bridge ({}) at {} with {}; labels {}; outbox {}",
          config.agentId(), bridge.get().tls() == null ? "plain" : "mutual TLS", bridge.get().endpoints(),
          served.stream().map(d -> d.info().name()).toList(), config.labels(), config.outbox());
      vertx = Vertx.vertx();
      io.busload.protocol.bridge.BridgeClient client = bridge.get().client(vertx);
      vertx.deployVerticle(new AgentVerticle(config, v -> new BridgeLink(client).start()))
          .await(60, TimeUnit.SECONDS);
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
      vertx.deployVerticle(new AgentVerticle(config)).await(60, TimeUnit.SECONDS);
    }

    CountDownLatch stopped = new CountDownLatch(1);
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
