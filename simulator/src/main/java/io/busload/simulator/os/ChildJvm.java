package io.busload.simulator.os;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Starting the processes the simulator measures, and waiting on them. */
public final class ChildJvm {
  private ChildJvm() {}

  /**
   * {@code java} of this JVM with the fleet's flags for Hazelcast on JDK 25, as the launcher gave them to this JVM,
   * so a member or coordinator started here runs as {@code ./busload up} would run it.
   */
  public static List<String> java() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--add-") || a.startsWith("--sun-misc") || a.startsWith("--enable-native"))
        .forEach(command::add);
    return command;
  }

  /** Polls {@code done} every {@code poll} until it holds (true) or {@code limit} passes (false, logged). */
  public static boolean await(PrintStream log, String what, Duration limit, Duration poll, BooleanSupplier done)
      throws InterruptedException {
    long end = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < end) {
      if (done.getAsBoolean()) {
        return true;
      }
      Thread.sleep(poll.toMillis());
    }
    log.printf("gave up waiting for %s after %d s%n", what, limit.toSeconds());
    return false;
  }

  /** The middle value (upper middle for an even count); 0 for none. */
  public static long median(List<Long> values) {
    return values.isEmpty() ? 0 : values.stream().sorted().toList().get(values.size() / 2);
  }
}
