package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResultsCsvTest {
  @Test
  void quote_commaOrQuote_quotedWithQuotesDoubled() {
    assertThat(ResultsCsv.quote("Xeon, 2 sockets \"gold\"")).isEqualTo("\"Xeon, 2 sockets \"\"gold\"\"\"");
  }

  @Test
  void quote_plainText_unchanged() {
    assertThat(ResultsCsv.quote("NVIDIA H100")).isEqualTo("NVIDIA H100");
  }
}
