package io.busload.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.coordinator.fleet.MeasuredAtWindow;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CoordinatorSettingsTest {
  @Test
  void resolve_nothingGiven_contractDefaults() {
    CoordinatorSettings s = CoordinatorSettings.resolve(null, null, null, Map.of(), "/home/u");

    assertThat(s.dataDir()).isEqualTo(Path.of("/home/u/.busload/coordinator"));
    assertThat(s.httpPort()).isEqualTo(8081);
    assertThat(s.httpHost()).isEqualTo("127.0.0.1");
    assertThat(s.cluster().eventBusPort()).isEqualTo(7701);
    assertThat(s.cluster().liteMember()).isFalse();
    assertThat(s.bridgePort()).as("agents' bridge served by default").isEqualTo(7704);
  }

  @Test
  void resolve_sampleRetention_defaultNinetyDaysDurationsAndForever() {
    assertThat(CoordinatorSettings.resolve(null, null, null, Map.of(), "/h").sampleRetention())
        .isEqualTo(Duration.ofDays(90));
    assertThat(CoordinatorSettings.resolve(null, null, null, Map.of("BUSLOAD_SAMPLE_RETENTION", "30d"), "/h")
        .sampleRetention()).isEqualTo(Duration.ofDays(30));
    assertThat(CoordinatorSettings.resolve(null, null, null, Map.of("BUSLOAD_SAMPLE_RETENTION", " 2160h "), "/h")
        .sampleRetention()).isEqualTo(Duration.ofDays(90));
    assertThat(CoordinatorSettings.resolve(null, null, null, Map.of("BUSLOAD_SAMPLE_RETENTION", "Forever"), "/h")
        .sampleRetention()).as("kept for good").isNull();
  }

  @Test
  void resolve_sampleRetention_badValueNamesTheVariable() {
    for (String bad : List.of("ninety days", "-5d", "90x", "1.5d")) {
      assertThatThrownBy(() -> CoordinatorSettings.resolve(null, null, null,
          Map.of("BUSLOAD_SAMPLE_RETENTION", bad), "/h"))
          .as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("BUSLOAD_SAMPLE_RETENTION: a duration such as 90d").hasMessageContaining(bad);
    }
    // Under a day would drop the samples tonight's verdicts compare.
    for (String tooShort : List.of("0s", "12h")) {
      assertThatThrownBy(() -> CoordinatorSettings.resolve(null, null, null,
          Map.of("BUSLOAD_SAMPLE_RETENTION", tooShort), "/h"))
          .as(tooShort).hasMessageStartingWith("BUSLOAD_SAMPLE_RETENTION: at least 1d");
    }
  }

  @Test
  void resolve_bridgePort_offServesNoneAndBadValueNamesTheVariable() {
    assertThat(CoordinatorSettings.resolve(null, null, null, Map.of("BUSLOAD_BRIDGE_PORT", "off"), "/h").bridgePort())
        .isEqualTo(CoordinatorSettings.NO_BRIDGE);
    assertThat(CoordinatorSettings.resolve(null, null, null, Map.of("BUSLOAD_BRIDGE_PORT", "7443"), "/h").bridgePort())
        .isEqualTo(7443);
    assertThatThrownBy(() -> CoordinatorSettings.resolve(null, null, null, Map.of("BUSLOAD_BRIDGE_PORT", "on"), "/h"))
        .hasMessageStartingWith("BUSLOAD_BRIDGE_PORT");
  }

  @Test
  void resolve_environmentAndCommandLine_commandLineWins() {
    Map<String, String> env = Map.of("BUSLOAD_DATA", "/srv/busload", "BUSLOAD_HTTP_PORT", "9000",
        "BUSLOAD_HTTP_HOST", "0.0.0.0", "BUSLOAD_CLUSTER_NAME", "lab", "BUSLOAD_ALLOW_PLAIN_HTTP", "1");

    CoordinatorSettings fromEnv = CoordinatorSettings.resolve(null, null, null, env, "/home/u");
    CoordinatorSettings fromCli = CoordinatorSettings.resolve(Path.of("/data"), "10.0.0.5", 9100, env, "/home/u");

    assertThat(fromEnv.dataDir()).isEqualTo(Path.of("/srv/busload"));
    assertThat(fromEnv.httpPort()).isEqualTo(9000);
    assertThat(fromEnv.httpHost()).isEqualTo("0.0.0.0");
    assertThat(fromEnv.cluster().clusterName()).isEqualTo("lab");
    assertThat(fromCli.dataDir()).isEqualTo(Path.of("/data"));
    assertThat(fromCli.httpPort()).isEqualTo(9100);
    assertThat(fromCli.httpHost()).isEqualTo("10.0.0.5");
  }

  @Test
  void resolve_apiTokens_defaultInDataDirOrFromEnvironment() {
    CoordinatorSettings defaults = CoordinatorSettings.resolve(Path.of("/data"), null, null, Map.of(), "/home/u");
    CoordinatorSettings fromEnv = CoordinatorSettings.resolve(Path.of("/data"), null, null,
        Map.of("BUSLOAD_API_TOKENS_FILE", "/etc/busload/api-tokens", "BUSLOAD_FIRST_API_TOKEN_FILE", "/run/first"),
        "/home/u");

    assertThat(defaults.apiTokensFile()).isEqualTo(Path.of("/data/api-tokens"));
    assertThat(defaults.firstApiTokenFile()).as("printed once on stdout").isNull();
    assertThat(fromEnv.apiTokensFile()).isEqualTo(Path.of("/etc/busload/api-tokens"));
    assertThat(fromEnv.firstApiTokenFile()).isEqualTo(Path.of("/run/first"));
  }

  @Test
  void resolve_measuredAtWindow_defaultsOrFromEnvironmentAndBadValueNamesTheVariable() {
    CoordinatorSettings defaults = CoordinatorSettings.resolve(null, null, null, Map.of(), "/h");
    CoordinatorSettings fromEnv = CoordinatorSettings.resolve(null, null, null,
        Map.of("BUSLOAD_MAX_CLOCK_SKEW", "90min", "BUSLOAD_MAX_RESULT_AGE", "P30D"), "/h");

    assertThat(defaults.measuredAtWindow()).isEqualTo(new MeasuredAtWindow(Duration.ofHours(24), Duration.ofDays(400)));
    assertThat(fromEnv.measuredAtWindow()).isEqualTo(new MeasuredAtWindow(Duration.ofMinutes(90), Duration.ofDays(30)));
    assertThatThrownBy(() -> CoordinatorSettings.resolve(null, null, null, Map.of("BUSLOAD_MAX_CLOCK_SKEW", "a day"),
        "/h")).hasMessage("BUSLOAD_MAX_CLOCK_SKEW: a duration such as 24h, 90min or 400d, not 'a day'");
  }

  @Test
  void measuredAtWindow_aheadOrBehindTheLimit_namesHowFarAndTheLimit() {
    Instant now = Instant.parse("2026-11-27T10:00:00Z");
    MeasuredAtWindow window = MeasuredAtWindow.DEFAULT;

    assertThat(window.problem(now.plus(Duration.ofHours(23)), now)).isNull();
    assertThat(window.problem(now.minus(Duration.ofDays(399)), now)).isNull();
    assertThat(window.problem(Instant.parse("2027-11-27T10:00:00Z"), now)).isEqualTo("measuredAt:"
        + " 2027-11-27T10:00:00Z is 365 d ahead of the coordinator's clock; the limit is 24 h (BUSLOAD_MAX_CLOCK_SKEW):"
        + " is the sender's clock set?");
    assertThat(window.problem(now.plus(Duration.ofMinutes(1500)), now)).contains("is 25 h ahead");
    assertThat(window.problem(Instant.parse("2000-01-01T00:00:00Z"), now)).isEqualTo("measuredAt:"
        + " 2000-01-01T00:00:00Z is 9827 d behind the coordinator's clock; the limit is 400 d (BUSLOAD_MAX_RESULT_AGE)");
  }

  @Test
  void resolve_badPortInEnvironment_namesTheVariable() {
    assertThatThrownBy(() -> CoordinatorSettings.resolve(null, null, null, Map.of("BUSLOAD_HTTP_PORT", "http"), "/h"))
        .hasMessageStartingWith("BUSLOAD_HTTP_PORT");
  }
}
