package io.busload.simulator.membership;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** One member process and what it wrote to its status file ({@link MemberMain}). */
final class Member {
  /** One line of the status file: {@code kind} is started, added, removed or stat. */
  record Line(String kind, long at, long a, long b, int size) {}

  final int index;
  final Process process;
  final Path status;

  Member(int index, Process process, Path status) {
    this.index = index;
    this.process = process;
    this.status = status;
  }

  List<Line> lines() {
    List<Line> lines = new ArrayList<>();
    List<String> raw;
    try {
      raw = Files.exists(status) ? Files.readAllLines(status) : List.of();
    } catch (IOException e) {
      return lines;
    }
    for (String text : raw) {
      String[] f = text.split(" ");
      try {
        switch (f[0]) {
          // started AT JOIN_MS JVM_MS PORT SIZE
          case "started" -> lines.add(new Line("started", Long.parseLong(f[1]), Long.parseLong(f[2]),
              Long.parseLong(f[4]), Integer.parseInt(f[5])));
          // added|removed AT PORT SIZE
          case "added", "removed" -> lines.add(new Line(f[0], Long.parseLong(f[1]), Long.parseLong(f[2]), 0,
              Integer.parseInt(f[3])));
          // stat AT HEAP_USED HEAP_COMMITTED SIZE
          case "stat" -> lines.add(new Line("stat", Long.parseLong(f[1]), Long.parseLong(f[2]),
              Long.parseLong(f[3]), Integer.parseInt(f[4])));
          default -> { }
        }
      } catch (RuntimeException partial) {
        // A line being written right now: read again next time.
      }
    }
    return lines;
  }

  Optional<Line> started() {
    return lines().stream().filter(l -> l.kind().equals("started")).findFirst();
  }

  /** Hazelcast port, once started. */
  int port() {
    return started().map(l -> (int) l.b()).orElse(-1);
  }

  /** Members this one sees, by its latest line. */
  int sees() {
    List<Line> lines = lines();
    return lines.isEmpty() ? 0 : lines.getLast().size();
  }

  Optional<Line> lastStat() {
    return lines().stream().filter(l -> l.kind().equals("stat")).reduce((x, y) -> y);
  }

  /** When this member saw {@code kind} (added or removed) of the member on {@code port}. */
  Optional<Long> saw(String kind, int port) {
    return lines().stream().filter(l -> l.kind().equals(kind) && l.a() == port).map(Line::at).findFirst();
  }
}
