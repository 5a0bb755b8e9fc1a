package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.agent.crosscheck.FleetAcceptance;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * deploy/gpu/run-fleet.sh starts and stops the fleet's processes; what decides whether the fleet passed is {@link
 * FleetAcceptance}, in Java, where it is tested. The script runs only on a lent GPU machine, so nothing else notices
 * when it and the command drift apart.
 */
class RunFleetScriptTest {
  private static final Path SCRIPT = Path.of("").toAbsolutePath().getParent().resolve("deploy/gpu/run-fleet.sh");

  @Test
  void runFleet_acceptance_inJavaWithNoInlineScriptLanguage() throws IOException {
    String script = Files.readString(SCRIPT);

    assertThat(script).contains(FleetAcceptance.class.getName()).doesNotContain("python").doesNotContain("<<'");
  }

  @Test
  void runFleet_optionsPassedToTheAcceptance_eachOneTheCommandDeclares() throws IOException {
    String script = Files.readString(SCRIPT);
    // The command: its class name, then its options on lines continued with a trailing backslash.
    int from = script.indexOf(FleetAcceptance.class.getName() + " \\\n");
    assertThat(from).as("run-fleet.sh runs " + FleetAcceptance.class.getName() + " with options").isNotNegative();
    int to = from;
    while (true) {
      int end = script.indexOf('\n', to);
      if (end < 0 || script.charAt(end - 1) != '\\') {
        to = end < 0 ? script.length() : end;
        break;
      }
      to = end + 1;
    }
    List<String> passed = new ArrayList<>();
    Matcher option = Pattern.compile("(?<=\\s)--[a-z-]+").matcher(script.substring(from, to));
    while (option.find()) {
      passed.add(option.group());
    }
    CommandLine.Model.CommandSpec spec = new CommandLine(new FleetAcceptance()).getCommandSpec();

    assertThat(passed).contains("--coordinator", "--standalone", "--out", "--token-file", "--device");
    assertThat(passed).allSatisfy(name -> assertThat(spec.findOption(name)).as(name).isNotNull());
  }
}
