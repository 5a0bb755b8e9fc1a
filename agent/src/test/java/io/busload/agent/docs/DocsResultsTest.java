package io.busload.agent.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every docs/results/X/README.md holds against its files; and the checker finds what it should. */
class DocsResultsTest {
  /** The repository root, from the agent module where Maven runs the test. */
  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

  @Test
  void everyResultsReadme_figuresTablesAndPathsHoldAgainstTheirFiles() throws IOException {
    List<Path> readmes;
    try (Stream<Path> folders = Files.list(REPOSITORY.resolve("docs/results"))) {
      readmes = folders.map(f -> f.resolve("README.md")).filter(Files::exists).sorted().toList();
    }
    assertThat(readmes).hasSizeGreaterThan(5);
    List<String> problems = readmes.stream().flatMap(r -> ResultsReadme.check(r, REPOSITORY).stream()).toList();
    assertThat(problems).as(String.join("\n", problems)).isEmpty();
  }

  @Test
  void check_wrongCountMissingFileSharedLinkAndWrongCell_eachReported(@TempDir Path repo) throws IOException {
    Path folder = Files.createDirectories(repo.resolve("docs/results/run"));
    Files.writeString(folder.resolve("table.txt"), """
        kernel               params                       valid     median us       GB/s of memcpy  of peak   spread      samples
        memcpy-d2d           size=64                      yes          129.18     4155.9    100.0%    86.3%    4.20%         48x8
        stride-copy-fp32     size=64;stride=1             yes          129.67     4140.4     99.6%    86.0%    0.81%         18x8
        """);
    Files.writeString(folder.resolve("README.md"), """
        Spreads: 2 of 2 under 1% <!-- figure "2 of 2" = spread-under table.txt -->; median 2.5%
        <!-- figure "2.5%" = spread-median table.txt --> (`table.txt`, `missing.csv`, `shared/x.csv`)

        <!-- table "GB/s" = bandwidth table.txt "of memcpy" = of-memcpy table.txt -->
        | kernel | params | GB/s | of memcpy |
        | --- | --- | ---: | ---: |
        | stride-copy-fp32 | stride=1;size=64 | 4140.4 | 99.7% |
        """);

    List<String> problems = ResultsReadme.check(folder.resolve("README.md"), repo);

    assertThat(problems).hasSize(4);
    assertThat(problems.get(0)).contains("missing.csv, which does not exist");
    assertThat(problems.get(1)).contains("shared/ is the team's reference folder");
    assertThat(problems.get(2)).contains("says \"2 of 2\" but spread-under of table.txt is \"1 of 2\"");
    assertThat(problems.get(3)).contains("column \"of memcpy\": shows 99.7% but table.txt gives 99.6%");
  }
}
