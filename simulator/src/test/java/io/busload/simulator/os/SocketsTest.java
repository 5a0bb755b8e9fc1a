package io.busload.simulator.os;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class SocketsTest {
  // Two ends of one member connection (16701 listening, an ephemeral client port) and one unrelated socket, as
  // ss -tinHO state established printed them on this machine (trimmed after the counters).
  private static final String SS = """
      0      0              127.0.0.1:16701          127.0.0.1:45945 bbr wscale:10,10 rto:204 bytes_sent:876 bytes_acked:877 bytes_received:382 segs_out:8
      0      0              127.0.0.1:45945          127.0.0.1:16701 bbr wscale:10,10 rto:204 bytes_sent:382 bytes_acked:383 bytes_received:876 segs_out:10
      0      0      [::ffff:127.0.0.1]:8080 [::ffff:127.0.0.1]:37210 bbr wscale:10,10 rto:204 bytes_sent:5 bytes_acked:5 bytes_received:99999 segs_out:1
      """;

  @Test
  void parse_memberConnection_countedOnceWithBothEndsBytes() {
    Sockets sockets = Sockets.parse(SS, Set.of(16701));

    assertThat(sockets.connections()).isEqualTo(1);
    assertThat(sockets.receivedBytes()).hasSize(2);
    assertThat(sockets.receivedSince(new Sockets(0, java.util.Map.of()))).isEqualTo(382 + 876);
  }

  @Test
  void receivedSince_earlierSnapshot_countsOnlyTheDifference() {
    Sockets before = Sockets.parse(SS, Set.of(16701));
    Sockets after = Sockets.parse(SS.replace("bytes_received:382", "bytes_received:1382"), Set.of(16701));

    assertThat(after.receivedSince(before)).isEqualTo(1000);
  }
}
