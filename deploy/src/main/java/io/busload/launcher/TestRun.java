package io.busload.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * {@code ./busload test}: one build of every module, then each module's tests in a Maven of its own, several modules
 * side by side.
 *
 * <p>One Maven reactor cannot do this: it starts a module only once every module it depends on has passed all its
 * phases, tests included, so the tests ran one module after another along protocol, agent, coordinator, dashboard
 * and deploy, though no module's tests need another module's test results, only its classes. Most of a test's time is
 * waiting (a cluster forming, a timeout, a browser), not computing, so tests of several modules fit beside each other
 * on two cores. The build installs every module into the local repository, as {@code ./busload build} does, and each
 * module's Maven then runs only the test goals ({@code surefire:test}, and {@code failsafe:integration-test} and
 * {@code failsafe:verify} where the module's pom declares Failsafe), reading the other modules from there.
 *
 * <p>Each module's output goes to {@code MODULE/target/busload-test.log} and is printed whole when the module ends, so
 * that a log of the run reads module by module. Every module runs even when one fails; the run fails naming each
 * failed module. With {@code --full}, a module with integration tests (deploy's fault tests, which time what a fleet
 * does under faults) starts once every other module's tests have ended, so that they run under the load they were
 * tuned for. Maven options given on the command line run one reactor ({@code verify}) with them instead, exactly as
 * given ({@code -pl coordinator -am -Dtest=...}).
 *
 * <p>Only the JDK is used, so that the launcher runs this file as it is ({@code java TestRun.java}), before any jar is
 * built. Arguments are positional, as the launcher is the only caller: {@code TestRun ROOT MARKER AT_ONCE FULL MVN
 * [MAVEN_OPTION...] -- [USER_OPTION...]}: the repository, a file made when the run started, how many modules (or,
 * with user options, reactor threads) at a time, 1 for {@code --full}, Maven and the options every call gets, and the
 * user's Maven options.
 */
public final class TestRun {
  /**
   * The modules whose tests take longest, started first so that the shortest fill in at the end; any other module of
   * the root pom follows in the pom's order. From the per-module test times of a fresh clone on two cores.
   */
  static final List<String> LONGEST_FIRST = List.of("coordinator", "dashboard", "agent", "deploy", "simulator",
      "protocol");

  private TestRun() {}

  /** One module's tests: its name and the Maven goals that run them; {@code last} starts after all the others. */
  record Module(String name, List<String> goals, boolean last) {}

  /** What a module's run came to. */
  record Outcome(String name, int exit, Duration took) {}

  public static void main(String[] args) throws Exception {
    int split = Arrays.asList(args).indexOf("--");
    if (args.length < 5 || split < 5 || !args[3].matches("[01]")) {
      System.err.println("usage: TestRun ROOT MARKER AT_ONCE FULL MVN [MAVEN_OPTION...] -- [USER_OPTION...]");
      System.exit(2);
    }
    int atOnce;
    try {
      atOnce = atOnce(args[2]);
    } catch (IllegalArgumentException e) {
      System.err.println("busload: " + e.getMessage());
      System.exit(2);
      return;
    }
    List<String> all = Arrays.asList(args);
    System.exit(run(Path.of(args[0]), Files.getLastModifiedTime(Path.of(args[1])), atOnce, args[3].equals("1"),
        all.subList(4, split), all.subList(split + 1, args.length), System.err));
  }

  /** How many modules at a time, from {@code BUSLOAD_TEST_THREADS} as the launcher passes it. */
  static int atOnce(String value) {
    if (!value.matches("[1-9]\\d{0,2}")) {
      throw new IllegalArgumentException("BUSLOAD_TEST_THREADS must be a whole number from 1 to 999 (modules at a "
          + "time), not '" + value + "'");
    }
    return Integer.parseInt(value);
  }

  /**
   * The whole run: the build and the modules' tests (or, with user options, one reactor), then what was skipped and
   * the time since {@code since}. Returns the exit status: 0 when everything passed.
   */
  static int run(Path root, FileTime since, int atOnce, boolean full, List<String> mavenAndOptions, List<String> user,
      PrintStream out) throws Exception {
    List<String> maven = new ArrayList<>(mavenAndOptions);
    if (full) {
      maven.add("-Pfull");
    }
    int exit;
    if (!user.isEmpty()) {
      exit = run(root, concat(maven, List.of("-T", String.valueOf(atOnce), "verify"), user));
    } else {
      exit = run(root, concat(maven, List.of("-T", String.valueOf(atOnce), "install", "-DskipTests")));
      if (exit == 0) {
        exit = failed(runTests(root, plan(root, full), maven, atOnce, out)).isEmpty() ? 0 : 1;
      }
    }
    String what = full ? "full tests (with the fault, TLS-fault, split-brain and container tests)" : "tests";
    TestReport.print(root, since, exit, what, out);
    return exit;
  }

  /** Every module of the root pom that has tests, in the order they start. */
  static List<Module> plan(Path root, boolean full) throws Exception {
    List<Module> modules = new ArrayList<>();
    for (Element modulesElement : elements(pom(root.resolve("pom.xml")), "modules")) {
      for (Element module : elements(modulesElement, "module")) {
        String name = module.getTextContent().strip();
        if (Files.isDirectory(root.resolve(name).resolve("src/test/java"))) {
          modules.add(module(name, declaresFailsafe(pom(root.resolve(name).resolve("pom.xml"))), full));
        }
      }
    }
    modules.sort(Comparator.comparingInt(TestRun::rank));
    return modules;
  }

  private static Module module(String name, boolean failsafe, boolean full) {
    List<String> goals = failsafe
        ? List.of("surefire:test", "failsafe:integration-test", "failsafe:verify") : List.of("surefire:test");
    return new Module(name, goals, full && failsafe);
  }

  private static int rank(Module module) {
    int i = LONGEST_FIRST.indexOf(module.name());
    return i < 0 ? LONGEST_FIRST.size() : i;
  }

  /**
   * Runs the modules' tests, at most {@code atOnce} at a time; a {@code last} module starts once no other is left
   * to start or running. Prints each module's output whole when it ends, then a line saying how it went.
   */
  static List<Outcome> runTests(Path root, List<Module> modules, List<String> maven, int atOnce, PrintStream out)
      throws IOException, InterruptedException {
    List<Module> waiting = new ArrayList<>(modules);
    Map<Module, Process> running = new LinkedHashMap<>();
    Map<Module, Instant> started = new LinkedHashMap<>();
    List<Outcome> outcomes = new ArrayList<>();
    Thread stopper = new Thread(() -> running.values().forEach(Process::destroy));
    Runtime.getRuntime().addShutdownHook(stopper);
    out.println("busload: testing " + String.join(", ", modules.stream().map(Module::name).toList()) + ", "
        + atOnce + " module(s) at a time; each module's output follows when it ends");
    while (!waiting.isEmpty() || !running.isEmpty()) {
      while (running.size() < atOnce) {
        Module next = waiting.stream()
            .filter(m -> !m.last() || running.isEmpty() && waiting.stream().allMatch(Module::last))
            .findFirst().orElse(null);
        if (next == null) {
          break;
        }
        waiting.remove(next);
        Path log = root.resolve(next.name()).resolve("target/busload-test.log");
        Files.createDirectories(log.getParent());
        List<String> command = concat(maven, List.of("-pl", next.name()), next.goals());
        started.put(next, Instant.now());
        running.put(next, new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true)
            .redirectOutput(log.toFile()).start());
      }
      Module ended = null;
      while (ended == null) {
        for (Map.Entry<Module, Process> entry : running.entrySet()) {
          if (!entry.getValue().isAlive()) {
            ended = entry.getKey();
            break;
          }
        }
        if (ended == null) {
          running.values().iterator().next().waitFor(200, TimeUnit.MILLISECONDS);
        }
      }
      int exit = running.remove(ended).exitValue();
      Outcome outcome = new Outcome(ended.name(), exit, Duration.between(started.get(ended), Instant.now()));
      outcomes.add(outcome);
      out.print(Files.readString(root.resolve(ended.name()).resolve("target/busload-test.log")));
      out.println("busload: " + ended.name() + ": tests " + (exit == 0 ? "passed in " : "FAILED (exit " + exit
          + ") after ") + minutes(outcome.took()));
    }
    Runtime.getRuntime().removeShutdownHook(stopper);
    List<String> failed = failed(outcomes);
    if (!failed.isEmpty()) {
      out.println("busload: tests failed in " + String.join(", ", failed) + " (output above, and in "
          + "MODULE/target/busload-test.log)");
    }
    return outcomes;
  }

  static List<String> failed(List<Outcome> outcomes) {
    return outcomes.stream().filter(o -> o.exit() != 0).map(Outcome::name).toList();
  }

  static String minutes(Duration took) {
    return took.toMinutes() + " min " + took.toSecondsPart() + " s";
  }

  private static int run(Path root, List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).directory(root.toFile()).inheritIO().start();
    Thread stopper = new Thread(process::destroy);
    Runtime.getRuntime().addShutdownHook(stopper);
    int exit = process.waitFor();
    Runtime.getRuntime().removeShutdownHook(stopper);
    return exit;
  }

  @SafeVarargs
  private static List<String> concat(List<String>... parts) {
    List<String> all = new ArrayList<>();
    for (List<String> part : parts) {
      all.addAll(part);
    }
    return all;
  }

  private static Element pom(Path file) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(file.toFile()).getDocumentElement();
  }

  /** Whether the pom's own build/plugins names Failsafe (a parent's plugins are not bound to this module's tests). */
  private static boolean declaresFailsafe(Element project) {
    for (Element build : elements(project, "build")) {
      for (Element plugins : elements(build, "plugins")) {
        for (Element plugin : elements(plugins, "plugin")) {
          if (elements(plugin, "artifactId").stream()
              .anyMatch(a -> a.getTextContent().strip().equals("maven-failsafe-plugin"))) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static List<Element> elements(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      if (nodes.item(i).getNodeType() == Node.ELEMENT_NODE && nodes.item(i).getNodeName().equals(name)) {
        found.add((Element) nodes.item(i));
      }
    }
    return found;
  }
}
