package io.busload.simulator.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Established TCP connections among a set of ports on loopback, with the bytes each endpoint received, from
 * {@code ss -tinHO}: counted from outside, per socket, so other traffic on the machine does not blur them.
 *
 * @param connections connections with one end on one of the ports (each counted once, at its listening end)
 * @param receivedBytes by socket ({@code local peer}), what each endpoint of those connections received so far
 */
public record Sockets(int connections, Map<String, Long> receivedBytes) {
  private static final Pattern LINE = Pattern.compile(
      "^\\S+\\s+\\S+\\s+(\\S+):(\\d+)\\s+(\\S+):(\\d+)\\s.*?bytes_received:(\\d+)");
  private static final Pattern NO_BYTES = Pattern.compile("^\\S+\\s+\\S+\\s+(\\S+):(\\d+)\\s+(\\S+):(\\d+)");

  /** A snapshot of connections where either end is one of {@code ports}. */
  public static Sockets among(Set<Integer> ports) throws IOException, InterruptedException {
    Process ss = new ProcessBuilder("ss", "-tinHO", "state", "established").redirectErrorStream(true).start();
    String out = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    ss.waitFor();
    return parse(out, ports);
  }

  /** Reads {@code ss -tinHO state established} output, one socket a line. */
  static Sockets parse(String out, Set<Integer> ports) {
    int connections = 0;
    Map<String, Long> received = new HashMap<>();
    for (String line : out.split("\n")) {
      Matcher m = NO_BYTES.matcher(line.strip());
      if (!m.find()) {
        continue;
      }
      int local = Integer.parseInt(m.group(2));
      int peer = Integer.parseInt(m.group(4));
      if (!ports.contains(local) && !ports.contains(peer)) {
        continue;
      }
      if (ports.contains(local)) {
        connections++;
      }
      Matcher bytes = LINE.matcher(line.strip());
      received.put(m.group(1) + ":" + local + " " + m.group(3) + ":" + peer,
          bytes.find() ? Long.parseLong(bytes.group(5)) : 0L);
    }
    return new Sockets(connections, received);
  }

  /** Bytes received by every endpoint between {@code earlier} and this snapshot (new sockets count from zero). */
  public long receivedSince(Sockets earlier) {
    long total = 0;
    for (Map.Entry<String, Long> e : receivedBytes.entrySet()) {
      long before = earlier.receivedBytes.getOrDefault(e.getKey(), 0L);
      total += Math.max(0, e.getValue() - before);
    }
    return total;
  }
}
