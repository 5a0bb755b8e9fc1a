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
    assertThat(sockets.source()).isEqualTo(Sockets.SS);
    assertThat(sockets.receivedBytes()).hasSize(2);
    assertThat(sockets.receivedSince(new Sockets(0, java.util.Map.of(), Sockets.SS))).isEqualTo(382 + 876);
  }

  @Test
  void receivedSince_earlierSnapshot_countsOnlyTheDifference() {
    Sockets before = Sockets.parse(SS, Set.of(16701));
    Sockets after = Sockets.parse(SS.replace("bytes_received:382", "bytes_received:1382"), Set.of(16701));

    assertThat(after.receivedSince(before)).isEqualTo(1000);
  }

  // /proc/net/tcp and tcp6 as the kernel writes them (ports in hex: 413D is 16701): both ends of one member connection
  // (one in tcp6, v4-mapped, as a dual-stack Java socket shows), a member's listening socket, and an unrelated
  // established socket; then /proc/net/dev's header and lo line.
  private static final String TCP = """
        sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
         0: 0100007F:413D 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 19 1 0 100 0 0 10 0
         1: 0100007F:413D 0100007F:B379 01 00000000:00000000 00:00000000 00000000     0        0 20 1 0 20 4 30 10 -1
         2: 0100007F:1F90 0100007F:9122 01 00000000:00000000 00:00000000 00000000     0        0 21 1 0 20 4 30 10 -1
        sl  local_address                         remote_address                        st tx_queue rx_queue
         0: 0000000000000000FFFF00000100007F:B379 0000000000000000FFFF00000100007F:413D 01 00000000:00000000 00:00000000
      """;
  private static final String DEV = """
      Inter-|   Receive                                                |  Transmit
       face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
          lo: 24754231247 52915249    0    0    0     0          0         0 24754231247 52915249    0    0    0     0       0          0
        eth0: 999 9    0    0    0     0          0         0 999 9    0    0    0     0       0          0
      """;

  @Test
  void parseProc_memberConnectionWithoutSs_countedOnceAtListeningEndAndLoopbackBytesRead() {
    Sockets sockets = Sockets.parseProc(TCP, DEV, Set.of(16701));

    assertThat(sockets.connections()).isEqualTo(1);
    assertThat(sockets.source()).isEqualTo(Sockets.PROC);
    assertThat(sockets.receivedBytes()).containsExactly(java.util.Map.entry("lo", 24754231247L));
  }

  @Test
  void parseProc_laterSnapshot_trafficIsTheLoopbackDifference() {
    Sockets before = Sockets.parseProc(TCP, DEV, Set.of(16701));
    Sockets after = Sockets.parseProc(TCP, DEV.replace("lo: 24754231247", "lo: 24754241247"), Set.of(16701));

    assertThat(after.receivedSince(before)).isEqualTo(10_000);
  }
}
