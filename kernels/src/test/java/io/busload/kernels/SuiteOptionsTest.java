package io.busload.kernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SuiteOptionsTest {

  @Test
  void parse_empty_elementsAbsent() {
    SuiteOptions options = SuiteOptions.parse(Map.of());
    assertThat(options.elements()).isEmpty();
    assertThat(options.elementsOr(1 << 24)).isEqualTo(1 << 24);
  }

  @Test
  void parse_elements_parsedAndRoundTrips() {
    SuiteOptions options = SuiteOptions.parse(Map.of("elements", " 65536 "));
    assertThat(options.elementsOr(7)).isEqualTo(65536);
    assertThat(options.asMap()).isEqualTo(Map.of("elements", "65536"));
  }

  @Test
  void parse_unknownOption_messageStartsWithItsName() {
    assertThatThrownBy(() -> SuiteOptions.parse(Map.of("bogus", "1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bogus: unknown option; known: elements");
  }

  @Test
  void parse_badElements_messageStartsWithElements() {
    for (String bad : new String[] {"abc", "0", "-5", "", "1.5", "99999999999999999999", "1099511627777"}) {
      assertThatThrownBy(() -> SuiteOptions.parse(Map.of("elements", bad)))
          .as("elements=%s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("elements: ");
    }
  }
}
