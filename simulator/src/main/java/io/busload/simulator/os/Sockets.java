package io.busload.simulator.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Established TCP connections among a set of ports on loopback, with the bytes each endpoint received, from
 * {@code ss -tinHO}: counted from outside, per socket, so other traffic on the machine does not blur them. Where
 * {@code ss} is missing (iproute2 is not in a bare Ubuntu or CUDA container image), connections come from
 * {@code /proc/net/tcp} and traffic from the loopback interface's counters, which is coarser: {@link #source} says
 * which was read.
 *
 * @param connections connections with one end on one of the ports (each counted once, at its listening end)
 * @param receivedBytes by socket ({@code local peer}), what each endpoint of those connections received so far; with
 *     {@link #PROC} one entry, {@code lo}, the bytes the loopback interface received
 * @param source how traffic was counted: {@link #SS} or {@link #PROC}
 */
public record Sockets(int connections, Map<String, Long> receivedBytes, String source) {
  /** Per socket: TCP payload of the members' own connections only. */
  public static final String SS = "ss: bytes_received of each member socket (TCP payload)";
  /** Per interface: every loopback packet on the machine, headers included, so it reads higher than {@link #SS}. */
  public static final String PROC = "/proc/net/dev: bytes received on lo (all loopback traffic, TCP/IP headers included)";

  private static final Pattern LINE = Pattern.compile(
      "^\\S+\\s+\\S+\\s+(\\S+):(\\d+)\\s+(\\S+):(\\d+)\\s.*?bytes_received:(\\d+)");
  private static final Pattern NO_BYTES = Pattern.compile("^\\S+\\s+\\S+\\s+(\\S+):(\\d+)\\s+(\\S+):(\\d+)");
  /** {@code st} of an established socket in {@code /proc/net/tcp}. */
  private static final String ESTABLISHED = "01";

  /** A snapshot of connections where either end is one of {@code ports}. */
  public static Sockets among(Set<Integer> ports) throws IOException, InterruptedException {
    Process ss;
    try {
      ss = new ProcessBuilder("ss", "-tinHO", "state", "established").redirectErrorStream(true).start();
    } catch (IOException noSs) {
      return fromProc(ports);
    }
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
    return new Sockets(connections, received, SS);
  }

  private static Sockets fromProc(Set<Integer> ports) throws IOException {
    StringBuilder tcp = new StringBuilder();
    // Java's sockets are dual-stack: a member on 127.0.0.1 may sit in tcp6 as ::ffff:127.0.0.1.
    for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
      Path path = Path.of(table);
      if (Files.exists(path)) {
        tcp.append(Files.readString(path)).append('\n');
      }
    }
    return parseProc(tcp.toString(), Files.readString(Path.of("/proc/net/dev")), ports);
  }

  /**
   * Reads {@code /proc/net/tcp} (and tcp6) lines, ports in hex, and the {@code lo:} line of {@code /proc/net/dev},
   * whose first number is the bytes the interface received.
   */
  static Sockets parseProc(String tcp, String dev, Set<Integer> ports) {
    int connections = 0;
    for (String line : tcp.split("\n")) {
      String[] f = line.strip().split("\\s+");
      if (f.length < 4 || !f[3].equals(ESTABLISHED) || !f[1].contains(":")) {
        continue;
      }
      int local = Integer.parseInt(f[1].substring(f[1].lastIndexOf(':') + 1), 16);
      if (ports.contains(local)) {
        connections++;
      }
    }
    long lo = 0;
    for (String line : dev.split("\n")) {
      String s = line.strip();
      if (s.startsWith("lo:")) {
        lo = Long.parseLong(s.substring(3).strip().split("\\s+")[0]);
      }
    }
    return new Sockets(connections, Map.of("lo", lo), PROC);
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
