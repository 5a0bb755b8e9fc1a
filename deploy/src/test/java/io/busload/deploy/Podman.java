package io.busload.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Debian's podman 4.3, run as root, as the container tests need it on this kind of machine: the runtime {@code runc}
 * (crun refuses the host's cgroups) and no default ulimits (runc may not raise {@code RLIMIT_NOFILE} here). Those
 * two settings live in a containers.conf of the test's own ({@code CONTAINERS_CONF}), so the host's
 * {@code /etc/containers} stays as it is. Networking is netavark's bridge with aardvark-dns, on a network the test
 * makes and removes: each container gets an address of its own and the test reaches it from the host, with no
 * port published and none of the host's ports taken.
 *
 * <p>The images are the tars {@code ./busload images} wrote to {@code deploy/target/images}, loaded once per test
 * JVM; the image id podman reports is checked against the one Jib wrote, so a container runs the image that was
 * built and nothing else.
 */
final class Podman {
  /** Where {@code ./busload images} writes the tars, from the deploy module's directory where Failsafe runs. */
  static final Path IMAGES = Path.of("target", "images").toAbsolutePath();
  /** The uid of the images' user {@code busload}: what a mounted file must belong to for it to be read inside. */
  static final int IMAGE_UID = 10001;

  private static final Map<String, String> LOADED = new ConcurrentHashMap<>();
  private final Map<String, String> env;

  private Podman(Path conf) {
    env = Map.of("CONTAINERS_CONF", conf.toString());
  }

  /** podman as the tests use it; fails naming what is missing and what installs it. */
  static Podman ready(Path work) throws IOException, InterruptedException {
    for (String tool : List.of("podman", "runc")) {
      if (!onPath(tool)) {
        throw new AssertionError(tool + " is not installed: ./busload test --full installs Debian's podman, runc, "
            + "netavark and aardvark-dns (apt-get install podman runc netavark aardvark-dns)");
      }
    }
    Path conf = Files.createDirectories(work).resolve("containers.conf");
    Files.writeString(conf, """
        [containers]
        default_ulimits = []
        [engine]
        runtime = "runc"
        [network]
        network_backend = "netavark"
        """);
    return new Podman(conf);
  }

  /**
   * {@code localhost/busload/NAME:VERSION}, loaded from {@code NAME.tar} the first time it is asked for in this JVM;
   * fails naming {@code ./busload images} when the tar is not there.
   */
  String image(String name) {
    return LOADED.computeIfAbsent(name, n -> {
      Path tar = IMAGES.resolve(n + ".tar");
      if (!Files.isRegularFile(tar)) {
        throw new AssertionError("no image tar at " + tar + ": ./busload images builds it (./busload test --full "
            + "does so before the tests)");
      }
      try {
        JsonNode built = JsonCodec.MAPPER.readTree(IMAGES.resolve(n + ".json").toFile());
        String ref = "localhost/" + built.path("image").asText();
        run("load", "--quiet", "--input", tar.toString());
        String id = run("image", "inspect", "--format", "{{.Id}}", ref).strip();
        if (!("sha256:" + id).equals(built.path("imageId").asText())) {
          throw new AssertionError(ref + " is image " + id + " in podman, not the " + built.path("imageId")
              + " that ./busload images built");
        }
        return ref;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    });
  }

  /** {@code podman args...}; its output, or an error with the output when it exits other than 0. */
  String run(String... args) throws IOException, InterruptedException {
    Result result = attempt(args);
    if (result.exit() != 0) {
      throw new IllegalStateException("podman " + String.join(" ", args) + " exited " + result.exit() + ":\n"
          + result.output());
    }
    return result.output();
  }

  /** {@code podman args...} whatever its exit (for clean-up and for logs). */
  Result attempt(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("podman"));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process = builder.start();
    byte[] output = process.getInputStream().readAllBytes();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("podman " + String.join(" ", args) + " did not finish in 5 minutes");
    }
    return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }

  /** What a podman command printed (stdout and stderr together) and its exit status. */
  record Result(int exit, String output) {}

  /**
   * A bridge network of the test's own (netavark, with aardvark-dns answering for the containers' names); returns
   * its subnet's first three octets (for example {@code 10.89.3}), so the test can give each container a fixed
   * address that certificates name.
   */
  String network(String name) throws IOException, InterruptedException {
    run("network", "create", name);
    String subnet = run("network", "inspect", "--format", "{{range .Subnets}}{{.Subnet}}{{end}}", name).strip();
    if (!subnet.matches("\\d+\\.\\d+\\.\\d+\\.0/24")) {
      throw new IllegalStateException("network " + name + " has subnet " + subnet + ", not a /24");
    }
    return subnet.substring(0, subnet.lastIndexOf('.'));
  }

  /** Makes {@code path} and everything under it the images' user's, as the kubelet's fsGroup or a unit's chown do. */
  static void ownByImageUser(Path path) throws IOException, InterruptedException {
    Process chown = new ProcessBuilder("chown", "-R", IMAGE_UID + ":" + IMAGE_UID, path.toString()).inheritIO().start();
    if (chown.waitFor() != 0) {
      throw new IllegalStateException("chown -R " + IMAGE_UID + " " + path + " failed");
    }
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/sbin", tool));
  }
}
