package io.busload.agent.cuda.cublas;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Finds the host's {@code libcublas.so.*}: {@code BUSLOAD_CUBLAS} when set, else the newest soname
 * ({@code .13}, {@code .12}, {@code .11}, then the unversioned development link) in {@code LD_LIBRARY_PATH},
 * {@code CUDA_HOME}/{@code CUDA_PATH}, {@code /usr/local/cuda*}, the distribution's library folders and the
 * nvidia-cublas Python wheels' {@code site-packages/nvidia/{cu13,cublas,cu12}/lib} (in virtual environments, on
 * {@code PATH}, under {@code /opt}, {@code /usr} and {@code ~/.local}), and last in
 * {@code ldconfig -p}'s cache.
 */
final class CublasLibrary {
  /** Environment variable naming the library file to use, overriding the search. */
  static final String OVERRIDE_ENV = "BUSLOAD_CUBLAS";
  /** Sonames in order of preference: CUDA 13's first (the H100/H200 hosts), the development link last. */
  static final List<String> NAMES = List.of("libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so");

  private CublasLibrary() {}

  /**
   * Where to look.
   *
   * @param override the {@code BUSLOAD_CUBLAS} value, or null
   * @param directories folders searched in order for each name
   * @param ldconfig what {@code ldconfig -p} maps sonames to, in its order; empty when it could not run
   * @param ldconfigNote how the cache was read, for the unavailable message
   */
  record Search(String override, List<Path> directories, List<Map.Entry<String, Path>> ldconfig, String ldconfigNote) {
    Search {
      directories = List.copyOf(directories);
      ldconfig = List.copyOf(ldconfig);
    }
  }

  /** The library file to load, or {@link CublasUnavailableException} saying everywhere that was searched. */
  static Path find(Search search) {
    if (search.override() != null && !search.override().isBlank()) {
      Path path = Path.of(search.override());
      if (!Files.isRegularFile(path)) {
        throw new CublasUnavailableException(OVERRIDE_ENV + "=" + search.override() + " is not a readable file");
      }
      return path;
    }
    for (String name : NAMES) {
      for (Path directory : search.directories()) {
        Path candidate = directory.resolve(name);
        if (Files.isRegularFile(candidate)) {
          return candidate;
        }
      }
      for (Map.Entry<String, Path> entry : search.ldconfig()) {
        if (entry.getKey().equals(name) && Files.isRegularFile(entry.getValue())) {
          return entry.getValue();
        }
      }
    }
    throw new CublasUnavailableException("no libcublas.so.* found in " + search.directories() + " nor in "
        + search.ldconfigNote() + "; set " + OVERRIDE_ENV + " to the library file");
  }

  /** {@code libcublasLt} of the same soname version beside {@code cublas}, which libcublas links against. */
  static Optional<Path> lightweightBeside(Path cublas) {
    String name = cublas.getFileName().toString();
    Path lt = cublas.resolveSibling(name.replace("libcublas.so", "libcublasLt.so"));
    return Files.isRegularFile(lt) ? Optional.of(lt) : Optional.empty();
  }

  /** This host's search: its environment, CUDA installs, Python wheels and ldconfig cache. */
  static Search host() {
    Map<String, String> env = System.getenv();
    Set<Path> directories = new LinkedHashSet<>();
    String ldPath = env.get("LD_LIBRARY_PATH");
    if (ldPath != null) {
      for (String entry : ldPath.split(":")) {
        if (!entry.isBlank()) {
          directories.add(Path.of(entry));
        }
      }
    }
    for (String variable : List.of("CUDA_HOME", "CUDA_PATH")) {
      String home = env.get(variable);
      if (home != null && !home.isBlank()) {
        directories.add(Path.of(home, "lib64"));
      }
    }
    directories.add(Path.of("/usr/local/cuda/lib64"));
    for (Path cuda : children(Path.of("/usr/local"), "cuda-")) {
      directories.add(cuda.resolve("lib64"));
      directories.add(cuda.resolve("targets/x86_64-linux/lib"));
    }
    directories.add(Path.of("/usr/lib/x86_64-linux-gnu"));
    directories.add(Path.of("/usr/lib64"));
    directories.addAll(wheelDirectories(env));
    List<Map.Entry<String, Path>> cache = new ArrayList<>();
    String note = readLdconfig(cache);
    return new Search(env.get(OVERRIDE_ENV), List.copyOf(directories), cache, note);
  }

  /** {@code site-packages/nvidia/...} folders of pip's nvidia-cublas wheels that exist on this host. */
  static List<Path> wheelDirectories(Map<String, String> env) {
    List<Path> prefixes = new ArrayList<>();
    for (String variable : List.of("VIRTUAL_ENV", "CONDA_PREFIX")) {
      String prefix = env.get(variable);
      if (prefix != null && !prefix.isBlank()) {
        prefixes.add(Path.of(prefix, "lib"));
      }
    }
    // A Python environment on PATH (/opt/torch/.venv/bin) keeps its packages under the sibling lib/.
    String path = env.get("PATH");
    if (path != null) {
      for (String entry : path.split(":")) {
        Path bin = Path.of(entry.isBlank() ? "." : entry);
        if (bin.isAbsolute() && bin.getFileName() != null && bin.getFileName().toString().equals("bin")
            && bin.getParent() != null) {
          prefixes.add(bin.getParent().resolve("lib"));
        }
      }
    }
    prefixes.add(Path.of(System.getProperty("user.home"), ".local/lib"));
    prefixes.add(Path.of("/usr/local/lib"));
    prefixes.add(Path.of("/usr/lib"));
    for (Path opt : children(Path.of("/opt"), "")) { // /opt/conda/lib, /opt/<name>/.venv/lib
      prefixes.add(opt.resolve("lib"));
      prefixes.add(opt.resolve(".venv/lib"));
    }
    Set<Path> found = new LinkedHashSet<>();
    for (Path prefix : prefixes) {
      for (Path python : children(prefix, "python3")) {
        for (String packages : List.of("site-packages", "dist-packages")) {
          for (String wheel : List.of("nvidia/cu13/lib", "nvidia/cublas/lib", "nvidia/cu12/lib")) {
            Path directory = python.resolve(packages).resolve(wheel);
            if (Files.isDirectory(directory)) {
              found.add(directory);
            }
          }
        }
      }
    }
    return List.copyOf(found);
  }

  /** Sub-folders of {@code parent} whose name starts with {@code prefix}, newest version (highest name) first. */
  private static List<Path> children(Path parent, String prefix) {
    if (!Files.isDirectory(parent)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(parent)) {
      return list.filter(Files::isDirectory)
          .filter(p -> p.getFileName().toString().startsWith(prefix))
          .sorted(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed())
          .toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  /** Fills {@code into} from {@code ldconfig -p}; returns how the cache was read, for messages. */
  private static String readLdconfig(List<Map.Entry<String, Path>> into) {
    for (String ldconfig : List.of("/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig")) {
      if (ldconfig.startsWith("/") && !Files.isExecutable(Path.of(ldconfig))) {
        continue;
      }
      try {
        Process process = new ProcessBuilder(ldconfig, "-p").redirectErrorStream(true).start();
        String output;
        try (InputStream in = process.getInputStream()) {
          output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
          process.destroy();
          continue;
        }
        into.addAll(parseLdconfig(output));
        return "ldconfig -p (" + into.size() + " entries)";
      } catch (IOException e) {
        // not this one; try the next location
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "ldconfig -p (interrupted)";
      }
    }
    return "ldconfig -p (could not run)";
  }

  /** Lines such as {@code \tlibcublas.so.13 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcublas.so.13}. */
  static List<Map.Entry<String, Path>> parseLdconfig(String output) {
    List<Map.Entry<String, Path>> entries = new ArrayList<>();
    for (String line : output.split("\n")) {
      int arrow = line.indexOf(" => ");
      if (arrow < 0) {
        continue;
      }
      String left = line.substring(0, arrow).strip();
      int space = left.indexOf(' ');
      String soname = space < 0 ? left : left.substring(0, space);
      entries.add(Map.entry(soname, Path.of(line.substring(arrow + 4).strip())));
    }
    return entries;
  }
}
