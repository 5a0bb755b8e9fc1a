package io.busload.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.agent.cluster.AgentConfig;
import io.busload.agent.cluster.AgentVerticle;
import io.busload.agent.cpu.CpuDevice;
import io.busload.agent.crosscheck.FleetAcceptance;
import io.busload.agent.device.Devices;
import io.busload.kernels.Fatbin;
import io.busload.protocol.JsonCodec;
import io.busload.protocol.cluster.ClusterSettings;
import io.busload.testsupport.Await;
import io.busload.testsupport.LoopbackCluster;
import io.busload.testsupport.SystemProperty;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FleetAcceptance} against a real coordinator (embedded PostgreSQL, REST on loopback) and a real agent measuring
 * the {@code stride} suite on the CPU, as deploy/gpu/run-fleet.sh runs it on a GPU machine: the REST sweep, the cron
 * schedule firing once, the exports and the comparisons with a standalone run of the same suite on the same CPU.
 *
 * <p>A cron fires on a whole minute. So that the test waits seconds rather than up to a minute, the coordinator and
 * the acceptance read one clock that runs at the real rate, set forward (never back) to 50 s past a minute just
 * before each acceptance starts, while no run is active: the schedule, made a few seconds later, fires at the next
 * whole minute. A CPU's medians vary between two runs on a shared machine far more than a GPU's (one differed 27 times over
 * while other modules' tests ran beside it), so the comparison that passes is given a tolerance no median misses:
 * what it checks is the fleet's bookkeeping (every case once, none lost or duplicated); the 1% of a GPU is
 * FleetComparisonTest's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FleetAcceptanceOnCpuTest {
  private static final String ELEMENTS = "elements=4096";
  /** A tolerance (a fraction) no CPU median misses. */
  private static final String ANY_MEDIAN = "1000000";
  private static final String LABEL = "lent-gpu";

  @TempDir static Path dir;
  private final ShiftedClock clock = new ShiftedClock();
  private LoopbackCluster cluster;
  private Coordinator coordinator;
  private Path tokenFile;
  private Path outbox;
  private String host;
  private String standaloneCsv;

  /**
   * What these tests check is the fleet's bookkeeping (see above), not the CPU's timings: each case samples for at
   * most 0.2 s instead of 1 s (on a shared machine the spread rarely settles, so every case runs to the cap).
   */
  @AutoClose private SystemProperty timeCap;

  @BeforeAll
  void startFleet() throws Exception {
    timeCap = SystemProperty.set(CpuDevice.TIME_CAP_PROPERTY, "0.2");
    cluster = new LoopbackCluster("busload-accept");
    CoordinatorSettings settings = ClusterCoordinator.settings(cluster, dir, TestDatabase.fresh());
    coordinator = ClusterCoordinator.start(cluster, settings, clock);
    tokenFile = Files.writeString(dir.resolve("first-api-token"), Http.TOKEN + "\n");
    outbox = dir.resolve("outbox");
    host = Devices.hostName();
    Vertx agent = cluster.join(ClusterSettings.AGENT);
    AgentConfig config = AgentConfig.standard("accept-agent", host, "test", Fatbin.sha256(),
        List.of(CpuDevice.create(host)), outbox).withLabels(List.of(LABEL));
    agent.deployVerticle(new AgentVerticle(config)).await(30, TimeUnit.SECONDS);

    // The standalone reference, as ./busload run prints it, on the same CPU.
    StringWriter csv = new StringWriter();
    int exit = io.busload.agent.Main.commandLine().setOut(new PrintWriter(csv)).execute("run", "--suite", "stride",
        "--device", "cpu", "--format", "csv", "--option", ELEMENTS);
    assertThat(exit).as("standalone run").isZero();
    standaloneCsv = csv.toString();
    assertThat(standaloneCsv.lines().count()).as("header and results").isGreaterThan(3);
  }

  @AfterAll
  void stopFleet() throws Exception {
    cluster.close();
  }

  @Test
  void accept_sweepAndScheduleOnCpuAgainstItsStandaloneRun_exitZeroWithEveryCaseOnceAndNothingLeftInTheOutbox()
      throws Exception {
    Path out = dir.resolve("pass");
    Path standalone = Files.writeString(dir.resolve("standalone.csv"), standaloneCsv);
    int cases = (int) standaloneCsv.lines().count() - 1;
    long storedBefore = new Http(coordinator.httpPort()).get("/api/results?format=csv&limit=100000").body().lines()
        .count() - 1;

    Accepted accepted = accept(out, standalone, ANY_MEDIAN, "--device", "cpu");

    String summary = Files.readString(out.resolve("summary.txt"));
    assertThat(accepted.exit()).as(summary).isZero();
    assertThat(summary).contains("fleet up (cpu rehearsal): device " + host + "/cpu online")
        .contains("schedule '").contains("' UTC created (")
        .contains("agent outbox files left: 0")
        .containsPattern("REST sweep \\S+: DONE; scheduled sweep \\S+: DONE")
        .containsPattern("sweep rest \\S+ exported: " + cases + " CSV rows, " + cases + " JSON results, " + cases
            + " distinct ids, " + cases + " valid")
        .containsPattern("sweep cron \\S+ exported: " + cases + " CSV rows")
        .contains("results stored in all: " + (storedBefore + 2 * cases) + ";")
        .contains("rest sweep vs standalone on cpu (exit 0): " + cases + " of " + cases + " compared kernels within"
            + " 100000000%")
        .contains("cron sweep vs standalone on cpu (exit 0): " + cases + " of " + cases)
        .contains(cases + " standalone cases, " + cases + " fleet results, 0 lost, 0 duplicated")
        .containsPattern("done in \\d+ s");
    assertThat(accepted.out()).contains("fleet up (cpu rehearsal)");
    // The scheduled sweep is the one the schedule fired, not the REST one.
    JsonNode schedule = JsonCodec.MAPPER.readTree(out.resolve("schedule.json").toFile());
    JsonNode fired = Http.json(new Http(coordinator.httpPort()).get("/api/schedules/" + schedule.get("id").asText()));
    String cronSweep = fired.get("fires").get(0).get("sweepId").asText();
    assertThat(JsonCodec.MAPPER.readTree(out.resolve("sweep-cron-state.json").toFile()).get("id").asText())
        .isEqualTo(cronSweep)
        .isNotEqualTo(JsonCodec.MAPPER.readTree(out.resolve("sweep-rest-state.json").toFile()).get("id").asText());
    assertThat(Files.readString(out.resolve("comparison-rest.md"))).startsWith("| kernel | params |")
        .doesNotContain("| NO |");
    assertThat(out.resolve("comparison-cron.md")).exists();
    assertThat(Files.readString(out.resolve("sweep-rest-cpu.csv")).lines().count()).isEqualTo(cases + 1);
    assertThat(Files.readString(out.resolve("standalone-cpu.csv"))).isEqualTo(standaloneCsv);
  }

  @Test
  void accept_allDevicesAndStandaloneWithAKernelMissingAndAMedianDoctored_exitOneNamingThemPerDevice()
      throws Exception {
    Path out = dir.resolve("fail");
    List<String> lines = new ArrayList<>(standaloneCsv.lines().toList());
    String dropped = lines.remove(lines.size() - 1);
    List<String> header = List.of(lines.getFirst().split(","));
    int median = header.indexOf("medianSeconds");
    int kernel = header.indexOf("kernel");
    String[] doctored = lines.get(1).split(",", -1);
    doctored[median] = String.valueOf(Double.parseDouble(doctored[median]) / 1000);
    lines.set(1, String.join(",", doctored));
    Path standalone = Files.writeString(dir.resolve("doctored.csv"), String.join("\r\n", lines) + "\r\n");

    // 10,000%: the median divided by 1000 lies 99,900% off; the CPU's own spread stayed under 3,000%.
    Accepted accepted = accept(out, standalone, "100", "--device", "all", "--devices", "1", "--label", LABEL);

    String summary = Files.readString(out.resolve("summary.txt"));
    assertThat(accepted.exit()).as(summary).isEqualTo(1);
    JsonNode schedule = JsonCodec.MAPPER.readTree(out.resolve("schedule.json").toFile());
    assertThat(schedule.get("target").get("kind").asText()).isEqualToIgnoringCase("label");
    assertThat(schedule.get("target").get("value").asText()).isEqualTo(LABEL);
    assertThat(summary).contains("scheduled sweep").doesNotContain("scheduled sweep none")
        .containsPattern("rest sweep vs standalone on cpu \\(exit 1\\): \\d+ of \\d+ compared kernels within 10000% .*,"
            + " 0 lost, 1 duplicated");
    assertThat(out.resolve("comparison-rest.md")).as("with --device all, one file a device").doesNotExist();
    assertThat(out.resolve("comparison-cron-cpu.md")).exists();
    String comparison = Files.readString(out.resolve("comparison-rest-cpu.md"));
    assertThat(comparison).contains("| " + doctored[kernel] + " |").contains("| NO |")
        .contains("duplicated: " + dropped.split(",")[kernel]).contains("(not in the standalone run)");
  }

  private record Accepted(int exit, String out) {}

  /** Runs the acceptance as run-fleet.sh does, with {@code more} options, the clock first set to 50 s past a minute. */
  private Accepted accept(Path out, Path standalone, String tolerance, String... more)
      throws IOException, InterruptedException {
    Await.until(this::idle, Duration.ofSeconds(120), "no run active before the clock moves");
    clock.forwardTo(50);
    StringWriter printed = new StringWriter();
    List<String> args = new ArrayList<>(List.of(
        "--coordinator", "http://127.0.0.1:" + coordinator.httpPort(), "--token-file", tokenFile.toString(),
        "--suite", "stride", "--option", ELEMENTS, "--standalone", standalone.toString(),
        "--outbox", outbox.toString(), "--out", out.toString(), "--schedule-delay", "3", "--deadline", "150",
        "--online-wait", "60", "--tolerance", tolerance, "--transport", "cpu rehearsal"));
    args.addAll(List.of(more));
    int exit = new picocli.CommandLine(new FleetAcceptance(clock)).setOut(new PrintWriter(printed))
        .execute(args.toArray(String[]::new));
    return new Accepted(exit, printed.toString());
  }

  /** Every sweep the coordinator holds is DONE or FAILED. */
  private boolean idle() {
    JsonNode sweeps = Http.json(new Http(coordinator.httpPort()).get("/api/sweeps"));
    for (JsonNode s : sweeps) {
      if (!List.of("DONE", "FAILED").contains(s.path("state").asText())) {
        return false;
      }
    }
    return true;
  }

  /** The system's clock, moved forward by a test; it runs at the real rate. */
  static final class ShiftedClock extends Clock {
    private volatile Duration shift = Duration.ZERO;

    /** Forward by at most a minute, to {@code second} past the current minute, else past the next one. */
    void forwardTo(int second) {
      Instant now = instant();
      Instant target = now.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plusSeconds(second);
      if (!target.isAfter(now)) {
        target = target.plusSeconds(60);
      }
      shift = shift.plus(Duration.between(now, target));
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(shift);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
