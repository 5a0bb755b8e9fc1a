package io.busload.deploy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Waiting on other processes by polling: a probe is tried until it gives a value. Between tries {@code gone} names
 * whatever has exited (a process or container that exited does not come back, so the wait fails at once); a
 * failed wait, or a failed assertion inside the probe, carries {@code logs}, the logs of what was waited on.
 * Exceptions of the {@code retried} kind mean "not up yet"; any other ends the wait.
 */
record Poll(Duration every, Class<? extends Exception> retried, Callable<String> gone, Callable<String> logs) {

  /** A wait on {@code fleet}'s processes, every half second, failing with the tails of the {@code logNames} logs. */
  static Poll onFleet(LocalFleet fleet, Class<? extends Exception> retried, List<String> logNames) {
    return new Poll(Duration.ofMillis(500), retried, () -> String.join(", ", fleet.exited()),
        () -> tails(fleet, logNames));
  }

  <T> T until(String what, int seconds, Callable<T> probe) throws Exception {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    Exception last = null;
    String exited = "";
    while (System.nanoTime() < deadline && exited.isEmpty()) {
      exited = gone.call();
      try {
        T value = probe.call();
        if (value != null) {
          return value;
        }
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + logs.call(), e);
      } catch (Exception e) {
        if (!retried.isInstance(e)) {
          throw e;
        }
        last = e;
      }
      Thread.sleep(every.toMillis());
    }
    throw new AssertionError((exited.isEmpty() ? "timed out after " + seconds + " s" : exited + " exited")
        + " waiting for " + what + (last == null ? "" : " (last: " + last + ")") + logs.call());
  }

  /** The last 6,000 characters of each named log that exists. */
  static String tails(LocalFleet fleet, List<String> logNames) {
    StringBuilder logs = new StringBuilder();
    for (String name : logNames) {
      String log = fleet.log(name);
      if (!log.startsWith("(no log")) {
        logs.append("\n--- ").append(name).append(" log (tail)\n")
            .append(log.length() > 6000 ? log.substring(log.length() - 6000) : log);
      }
    }
    return logs.toString();
  }
}
