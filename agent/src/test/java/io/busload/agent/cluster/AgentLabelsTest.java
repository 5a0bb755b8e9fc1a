package io.busload.agent.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code BUSLOAD_LABELS}: what the lab calls the agent's host, read once at start. */
class AgentLabelsTest {
  @Test
  void labels_commaSeparated_trimmedWithoutEmptiesOrRepeatsInTheirOrder() {
    assertThat(AgentConfig.labels(Map.of("BUSLOAD_LABELS", " rack=a ,lab-east,, rack=a,gpu room 2")))
        .containsExactly("rack=a", "lab-east", "gpu room 2");
  }

  @Test
  void labels_unsetOrBlank_none() {
    assertThat(AgentConfig.labels(Map.of())).isEmpty();
    assertThat(AgentConfig.labels(Map.of("BUSLOAD_LABELS", " , "))).isEmpty();
  }

  @Test
  void labels_tooLongTooManyOrWithControlCharacters_refusedNamingTheVariable() {
    assertThatThrownBy(() -> AgentConfig.labels(Map.of("BUSLOAD_LABELS", "x".repeat(101))))
        .hasMessageStartingWith("BUSLOAD_LABELS: label 'xxx");
    assertThatThrownBy(() -> AgentConfig.labels(Map.of("BUSLOAD_LABELS", "a\tb")))
        .hasMessageContaining("control characters");
    assertThatThrownBy(() -> AgentConfig.labels(Map.of("BUSLOAD_LABELS",
        String.join(",", java.util.stream.IntStream.range(0, 33).mapToObj(i -> "l" + i).toList()))))
        .hasMessage("BUSLOAD_LABELS: at most 32 labels, got 33");
  }
}
