package io.busload.agent.verdicts;

import io.busload.analysis.changepoint.EDivisive;
import io.busload.analysis.changepoint.OnlineDetector;
import io.busload.analysis.cohort.CohortCheck;
import io.busload.analysis.evaluation.Detector;
import io.busload.analysis.evaluation.Evaluation;
import io.busload.analysis.evaluation.FleetSimulation;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code busload evaluate}: the z-score and E-Divisive side by side on the seeded labelled corpus, the cohort check
 * on simulated fleets with planted degraded cards, and both detectors on the real result files of the given folders.
 */
@Command(name = "evaluate", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Evaluate the change detectors and the cohort check on data with a known answer.")
public final class EvaluateCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--seed", defaultValue = "20261124", description = "Corpus and fleet seed (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--per-cell", defaultValue = "25",
      description = "Series per kind, noise and size in the corpus (default: ${DEFAULT-VALUE})")
  int perCell;

  @Option(names = "--fleets", defaultValue = "20", description = "Simulated fleets (default: ${DEFAULT-VALUE})")
  int fleets;

  @Option(names = "--real", paramLabel = "DIR", description = "Folders of result files (e.g. docs/results) to run the "
      + "detectors over; repeatable")
  List<Path> real = new ArrayList<>();

  @Option(names = "--out", paramLabel = "DIR", description = "Write corpus.md, fleet.md and real.md there instead of "
      + "printing them")
  Path out;

  @Override
  public Integer call() {
    if (perCell < 1 || fleets < 1) {
      spec.commandLine().getErr().println("busload evaluate: --per-cell and --fleets must be at least 1");
      return 2;
    }
    List<Detector> detectors = List.of(Detector.zScore(), Detector.eDivisive(OnlineDetector.Settings.defaults()),
        Detector.eDivisiveOffline(EDivisive.Settings.defaults()));
    Evaluation.Result corpus = Evaluation.run(seed, perCell, detectors, List.of(detectors.get(2).name()));
    emit("corpus.md", "# Change detectors on the labelled corpus\n\n" + Evaluation.markdown(corpus));
    emit("fleet.md", "# Cohort check on simulated fleets\n\n"
        + FleetSimulation.markdown(seed, fleets, new CohortCheck(CohortCheck.Settings.defaults())));
    if (!real.isEmpty()) {
      emit("real.md", "# Change detectors on the real result files\n\nFolders: " + real + "\n\n"
          + RealHistories.markdown(real));
    }
    return 0;
  }

  private void emit(String name, String markdown) {
    if (out == null) {
      PrintWriter w = spec.commandLine().getOut();
      w.println(markdown);
      w.flush();
      return;
    }
    try {
      Files.createDirectories(out);
      Files.writeString(out.resolve(name), markdown);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
