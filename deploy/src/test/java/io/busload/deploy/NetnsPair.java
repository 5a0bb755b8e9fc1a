package io.busload.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Two network namespaces joined by one veth pair: a coordinator host and an agent host, each with a private
 * address that exists only inside its namespace (the machine's own interfaces, routes and firewall are never
 * touched). Cutting the link takes the agent's end down; deleting the namespaces removes the pair with them.
 */
final class NetnsPair implements AutoCloseable {
  final String coordinatorNs;
  final String agentNs;
  final String coordinatorIp;
  final String agentIp;
  private final String coordinatorVeth;
  private final String agentVeth;
  private boolean created;

  NetnsPair() {
    String tag = UUID.randomUUID().toString().substring(0, 6);
    coordinatorNs = "busload-c-" + tag;
    agentNs = "busload-a-" + tag;
    // Interface names are at most 15 characters.
    coordinatorVeth = "blc" + tag;
    agentVeth = "bla" + tag;
    int subnet = ThreadLocalRandom.current().nextInt(1, 255);
    coordinatorIp = "10.213." + subnet + ".1";
    agentIp = "10.213." + subnet + ".2";
  }

  /** Set to 1, it lets a run skip the tests that need network namespaces where they cannot run. */
  static final String SKIP_SETTING = "BUSLOAD_SKIP_NETNS";

  /**
   * Why namespaces cannot be made here (not root, no iproute2), or empty when they can: the one precondition check
   * of every test that needs them. A test that cannot run fails here with the reason, because a skipped
   * fault test reads as a passed one in a green build; only {@code BUSLOAD_SKIP_NETNS=1} turns that into a returned
   * reason, with which the caller skips, and {@code ./busload test} then prints what it skipped and why.
   */
  static Optional<String> unavailable() {
    Optional<String> reason = probe();
    if (reason.isPresent() && !"1".equals(System.getenv(SKIP_SETTING))) {
      throw new AssertionError("this test needs network namespaces and cannot make them here: " + reason.get()
          + ". Run it as root on a machine with iproute2, or set " + SKIP_SETTING + "=1 to skip it");
    }
    return reason;
  }

  private static Optional<String> probe() {
    String probe = "busload-probe-" + UUID.randomUUID().toString().substring(0, 6);
    try {
      Result add = run(List.of("ip", "netns", "add", probe));
      if (add.exit() != 0) {
        return Optional.of("'ip netns add' failed (" + add.output().strip() + "); needs root and iproute2");
      }
      run(List.of("ip", "netns", "del", probe));
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("cannot run 'ip' (" + e.getMessage() + "); needs iproute2");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted");
    }
  }

  void create() throws IOException, InterruptedException {
    created = true;
    must("ip", "netns", "add", coordinatorNs);
    must("ip", "netns", "add", agentNs);
    must("ip", "link", "add", coordinatorVeth, "type", "veth", "peer", "name", agentVeth);
    must("ip", "link", "set", coordinatorVeth, "netns", coordinatorNs);
    must("ip", "link", "set", agentVeth, "netns", agentNs);
    must("ip", "-n", coordinatorNs, "addr", "add", coordinatorIp + "/24", "dev", coordinatorVeth);
    must("ip", "-n", agentNs, "addr", "add", agentIp + "/24", "dev", agentVeth);
    for (String ns : List.of(coordinatorNs, agentNs)) {
      must("ip", "-n", ns, "link", "set", "lo", "up");
    }
    must("ip", "-n", coordinatorNs, "link", "set", coordinatorVeth, "up");
    must("ip", "-n", agentNs, "link", "set", agentVeth, "up");
  }

  /** The prefix that runs a command inside a namespace. */
  static List<String> in(String namespace) {
    return List.of("ip", "netns", "exec", namespace);
  }

  void cut() throws IOException, InterruptedException {
    must("ip", "-n", agentNs, "link", "set", agentVeth, "down");
  }

  void heal() throws IOException, InterruptedException {
    must("ip", "-n", agentNs, "link", "set", agentVeth, "up");
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (!created) {
      return;
    }
    // Deleting a namespace destroys the veth end inside it, and with it the peer.
    run(List.of("ip", "netns", "del", agentNs));
    run(List.of("ip", "netns", "del", coordinatorNs));
  }

  /** Runs {@code command}; a non-zero exit is an IOException naming the command and its output. */
  static void must(String... command) throws IOException, InterruptedException {
    Result result = run(List.of(command));
    if (result.exit() != 0) {
      throw new IOException(String.join(" ", command) + " exited " + result.exit() + ": " + result.output().strip());
    }
  }

  record Result(int exit, String output) {}

  static Result run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Result(process.waitFor(), output);
  }
}
