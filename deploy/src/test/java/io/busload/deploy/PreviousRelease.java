package io.busload.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The previous release's agent, built from its commit in this repository's history (previous-release.properties) by
 * the Maven that runs these tests, with its local repository, so it costs no download of its own. The build is kept
 * under {@code target/previous-release/COMMIT}: a rerun starts the agent at once.
 *
 * @param commit the previous release's commit
 * @param version the release it was
 * @param classpath the agent's jar and its runtime libraries
 */
record PreviousRelease(String commit, String version, String classpath) {
  static final Path CACHE = Path.of("target", "previous-release");

  /** Builds the agent of the release named in previous-release.properties, or finds it built. */
  static PreviousRelease agent() throws IOException, InterruptedException {
    Properties release = new Properties();
    try (InputStream in = PreviousRelease.class.getResourceAsStream("/previous-release.properties")) {
      if (in == null) {
        throw new IllegalStateException("previous-release.properties is not on the test class path");
      }
      release.load(in);
    }
    String commit = release.getProperty("commit");
    Path dir = CACHE.resolve(commit).toAbsolutePath();
    Path classpath = dir.resolve("agent-classpath.txt");
    if (!Files.exists(classpath)) {
      build(commit, dir, classpath);
    }
    return new PreviousRelease(commit, release.getProperty("version"), Files.readString(classpath).strip());
  }

  /**
   * The release's tree from {@code git archive} (its history is in every full clone, tags or not), its agent module
   * and what that needs packaged, then the agent's runtime class path written where {@link #agent} finds it.
   */
  private static void build(String commit, Path dir, Path classpath) throws IOException, InterruptedException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    Path src = dir.resolve("src");
    if (Files.exists(src)) {
      run(List.of("rm", "-rf", src.toString()), root, dir.resolve("archive.log"));
    }
    Files.createDirectories(src);
    run(List.of("bash", "-c", "set -o pipefail; git -C \"$0\" archive --format=tar \"$1\" | tar -x -C \"$2\"",
        root.toString(), commit, src.toString()), root, dir.resolve("archive.log"));
    String mavenHome = System.getProperty("busload.maven.home");
    String repository = System.getProperty("busload.maven.repo");
    if (mavenHome == null || mavenHome.isBlank()) {
      throw new IllegalStateException("busload.maven.home is not set: run this test through Maven (./busload test)");
    }
    List<String> mvn = new ArrayList<>(List.of(Path.of(mavenHome, "bin", "mvn").toString(), "-B", "-ntp", "-q",
        "-f", src.resolve("pom.xml").toString(), "-pl", "agent", "-am", "package", "dependency:build-classpath",
        "-DskipTests", "-Dvaadin.skip=true", "-Dmdep.includeScope=runtime", "-Dmdep.outputFile=runtime-classpath.txt"));
    if (repository != null && !repository.isBlank()) {
      mvn.add("-Dmaven.repo.local=" + repository);
    }
    run(mvn, src, dir.resolve("build.log"));
    Path agentDir = src.resolve("agent");
    try (var jars = Files.list(agentDir.resolve("target"))) {
      Path jar = jars.filter(p -> p.getFileName().toString().matches("busload-agent-.*\\.jar")).findFirst()
          .orElseThrow(() -> new IllegalStateException("no agent jar in " + agentDir.resolve("target")));
      String libraries = Files.readString(agentDir.resolve("runtime-classpath.txt")).strip();
      Files.writeString(classpath, jar + java.io.File.pathSeparator + libraries);
    }
  }

  private static void run(List<String> command, Path dir, Path log) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().put("JAVA_HOME", Path.of(System.getProperty("java.home")).toString());
    Process process = builder.start();
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " took over 10 minutes; its output: " + log);
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " exited " + process.exitValue() + ":\n"
          + Files.readString(log, StandardCharsets.UTF_8));
    }
  }
}
