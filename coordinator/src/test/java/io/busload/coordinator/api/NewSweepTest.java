package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.busload.protocol.JsonCodec;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NewSweepTest {
  @Test
  void optionNamed_messageStartsWithGivenName_returnsThatName() {
    assertThat(NewSweep.optionNamed("elements: must be a positive integer", Set.of("elements", "elem")))
        .isEqualTo("elements");
  }

  @Test
  void optionNamed_nameNotAmongGiven_takesTheLeadingWord() {
    assertThat(NewSweep.optionNamed("warp_size: unknown option", Set.of())).isEqualTo("warp_size");
  }

  @Test
  void options_profileRunOption_acceptedBesideSuiteOptionsAndPassedOn() throws Exception {
    Map<String, String> options = NewSweep.options(JsonCodec.MAPPER.readTree("{\"profile\":true,\"size\":\"4096\"}"));

    assertThat(options).containsExactly(Map.entry("profile", "true"), Map.entry("size", "4096"));
  }

  @Test
  void options_profileNotABoolean_refusedNamingIt() {
    assertThatThrownBy(() -> NewSweep.options(JsonCodec.MAPPER.readTree("{\"profile\":\"often\"}")))
        .isInstanceOf(BadInput.class).hasMessageContaining("profile: must be true or false");
  }
}
