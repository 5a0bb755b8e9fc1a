package io.busload.coordinator;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code io.busload.coordinator.Main [--data DIR] [--http-port N]}: joins the cluster and serves the REST API. */
@Command(name = "busload-coordinator", mixinStandardHelpOptions = true, version = "busload-coordinator 0.1.0",
    description = "Busload coordinator: fleet membership, run queues, result store and REST API.")
public final class Main implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(Main.class);

  @Option(names = "--data", paramLabel = "DIR",
      description = "Data directory (env BUSLOAD_DATA; default ~/.busload/coordinator).")
  Path data;

  @Option(names = "--http-port", paramLabel = "N", description = "REST port (env BUSLOAD_HTTP_PORT; default 8081).")
  Integer httpPort;

  @Option(names = "--http-host", paramLabel = "HOST",
      description = "REST interface (env BUSLOAD_HTTP_HOST; default 127.0.0.1).")
  String httpHost;

  public static void main(String[] args) {
    int code = new CommandLine(new Main()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  @Override
  public Integer call() {
    CoordinatorSettings settings;
    java.util.Optional<io.busload.coordinator.fleet.SlurmSettings> slurm;
    try {
      settings = CoordinatorSettings.resolve(data, httpHost, httpPort, System.getenv(),
          System.getProperty("user.home"));
      slurm = io.busload.coordinator.fleet.SlurmSettings.fromEnvironment(System.getenv());
    } catch (IllegalArgumentException e) {
      // A setting the coordinator refuses (plain HTTP off loopback, a bad port): the reason, not a stack trace.
      LOG.error("coordinator did not start: {}", e.getMessage());
      return 2;
    }
    LOG.info("joining cluster '{}' as coordinator on {} (event bus port {}, members {})",
        settings.cluster().clusterName(), settings.cluster().host(), settings.cluster().eventBusPort(),
        settings.cluster().members());
    Coordinator coordinator;
    try {
      coordinator = Coordinator.start(settings, slurm).await(2, TimeUnit.MINUTES);
    } catch (Exception e) {
      LOG.error("coordinator did not start: {}", e.getMessage(), e);
      return 1;
    }
    // Closing the store on the way out stops the embedded PostgreSQL cleanly (a fast shutdown, no recovery next start).
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        coordinator.stop().await(20, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("coordinator did not stop cleanly: {}", e.getMessage());
      }
    }, "busload-coordinator-shutdown"));
    return 0;
  }
}
