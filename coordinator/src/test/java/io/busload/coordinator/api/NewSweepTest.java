package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

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
}
