package io.busload.coordinator.fleet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Slurm's own command-line interface ({@code sinfo}, {@code squeue}, {@code sbatch}), the one every Slurm site has;
 * run as the coordinator's user, with its {@code SLURM_CONF} and {@code SBATCH_*} settings. Blocking: call from a
 * worker thread.
 */
public class Slurm {
  /** A Slurm command that does not answer in this long is taken as failed, not waited for. */
  private static final long TIMEOUT_SECONDS = 30;
  /** The prefix of the jobs this coordinator submits, followed by the node: how they are found again. */
  public static final String JOB_PREFIX = "busload-agent-";
  private static final Pattern GPUS = Pattern.compile("(?:^|,)gpu(?::[^:,(]+)?:(\\d+)");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

  /** A node of a partition and the GPUs Slurm lists for it ({@code Gres=gpu:N}); 0 measures its CPU. */
  public record Node(String name, int gpus) {
    /** The devices a job's agent on this node serves, named as the agent names them. */
    public List<String> deviceIds() {
      if (gpus == 0) {
        return List.of(name + "/cpu");
      }
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < gpus; i++) {
        ids.add(name + "/cuda:" + i);
      }
      return ids;
    }

    /** The agent's {@code --device} arguments for {@link #deviceIds}. */
    public List<String> deviceArguments() {
      return deviceIds().stream().map(id -> id.substring(name.length() + 1)).toList();
    }
  }

  /** A partition or node name this coordinator passes to Slurm: checked, since it ends up in arguments and paths. */
  public static boolean validName(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  /**
   * The nodes of {@code partition}, in Slurm's order.
   *
   * @throws IllegalArgumentException when Slurm knows no such partition, or it has no node
   * @throws IllegalStateException when Slurm cannot be asked
   */
  public List<Node> nodes(String partition) {
    if (!validName(partition)) {
      throw new IllegalArgumentException("'" + partition + "' is not a partition name");
    }
    String out = run(List.of("sinfo", "--noheader", "--Node", "--partition=" + partition, "--format=%N|%G"));
    Map<String, Node> nodes = new LinkedHashMap<>();
    for (String line : out.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      String[] parts = line.strip().split("\\|", 2);
      nodes.putIfAbsent(parts[0], new Node(parts[0], parts.length > 1 ? gpus(parts[1]) : 0));
    }
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("Slurm lists no node in partition '" + partition + "'");
    }
    return List.copyOf(nodes.values());
  }

  /** GPUs in a node's GRES as {@code sinfo %G} prints them ({@code gpu:4}, {@code gpu:a100:4(S:0-1)}, or none). */
  static int gpus(String gres) {
    Matcher m = GPUS.matcher(gres.strip());
    int total = 0;
    while (m.find()) {
      total += Integer.parseInt(m.group(1));
    }
    return total;
  }

  /** This coordinator's job for {@code node} that Slurm still holds (pending, running or completing), if any. */
  public Optional<String> activeJob(String node) {
    String out = run(List.of("squeue", "--noheader", "--name=" + JOB_PREFIX + node, "--format=%i"));
    return out.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst();
  }

  /**
   * Submits {@code script} as one job on {@code node} of {@code partition}, its output into {@code output};
   * returns the job's id. {@code --export=NONE}: the job gets only what the script sets, none of the coordinator's
   * environment (which may hold its database password).
   */
  public String submit(String partition, Node node, Path script, Path output, int minutes) {
    String out = run(submitCommand(partition, node, script, output, minutes)).strip();
    String id = out.contains(";") ? out.substring(0, out.indexOf(';')) : out;
    if (!id.matches("[0-9_]+")) {
      throw new IllegalStateException("sbatch answered '" + out + "', not a job id");
    }
    return id;
  }

  /** {@link #submit}'s {@code sbatch} command line. */
  static List<String> submitCommand(String partition, Node node, Path script, Path output, int minutes) {
    List<String> command = new ArrayList<>(List.of("sbatch", "--parsable", "--export=NONE",
        "--job-name=" + JOB_PREFIX + node.name(), "--partition=" + partition, "--nodelist=" + node.name(),
        "--nodes=1", "--ntasks=1", "--time=" + minutes, "--output=" + output, "--requeue"));
    if (node.gpus() > 0) {
      command.add("--gres=gpu:" + node.gpus());
    }
    command.add(script.toString());
    return command;
  }

  /** Runs a Slurm command; its output, or an exception with its error output. */
  String run(List<String> command) {
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException(command.getFirst() + ": cannot run it (" + e.getMessage() + "); is Slurm's"
          + " client installed on the coordinator's host?", e);
    }
    try {
      process.getOutputStream().close();
      byte[] output = process.getInputStream().readAllBytes();
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(command.getFirst() + ": no answer in " + TIMEOUT_SECONDS + " s");
      }
      String text = new String(output, StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + ": exit " + process.exitValue() + ": "
            + text.strip());
      }
      return text;
    } catch (IOException e) {
      throw new IllegalStateException(command.getFirst() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IllegalStateException(command.getFirst() + ": interrupted", e);
    }
  }
}
