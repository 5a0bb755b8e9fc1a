package io.busload.kernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SuiteOptionsTest {

  @Test
  void parse_empty_sizeAbsent() {
    SuiteOptions options = SuiteOptions.parse(Map.of());
    assertThat(options.size()).isEmpty();
    assertThat(options.axes()).isEmpty();
  }

  @Test
  void parse_elements_isTheSizeAndRoundTripsAsSize() {
    SuiteOptions options = SuiteOptions.parse(Map.of("elements", " 65536 "));
    assertThat(options.size()).hasValue(65536);
    assertThat(options.asMap()).isEqualTo(Map.of("size", "65536"));
    assertThat(SuiteOptions.parse(options.asMap())).isEqualTo(options);
  }

  @Test
  void parse_sizeAndElements_messageStartsWithTheSecond() {
    assertThatThrownBy(() -> SuiteOptions.parse(Map.of("elements", "1", "size", "2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("size: give either size or elements, not both");
  }

  @Test
  void parse_unknownOption_messageStartsWithItsName() {
    assertThatThrownBy(() -> SuiteOptions.parse(Map.of("bogus", "1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bogus: unknown option; known: bytes, cache-study, elements, offset, peer, size, stride");
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

  @Test
  void parse_strides_listParsed() {
    assertThat(SuiteOptions.parse(Map.of("stride", "3, 5,32")).axes()).isEqualTo(Map.of("stride", List.of(3L, 5L, 32L)));
  }

  @Test
  void parse_strideOutOfRange_messageStartsWithStride() {
    for (String bad : new String[] {"0", "1025", "-1", "x", "1,,2"}) {
      assertThatThrownBy(() -> SuiteOptions.parse(Map.of("stride", bad)))
          .as("stride=%s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("stride: ");
    }
  }

  @Test
  void parse_offsetOutOfRange_messageStartsWithOffset() {
    assertThat(SuiteOptions.parse(Map.of("offset", "0,31")).axes()).containsEntry("offset", List.of(0L, 31L));
    assertThatThrownBy(() -> SuiteOptions.parse(Map.of("offset", "1025")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("offset: must be 0..1024 elements, got 1025");
  }
}
