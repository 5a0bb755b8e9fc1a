package io.busload.analysis.evaluation;

import io.busload.analysis.Words;
import io.busload.analysis.cohort.CohortCheck;
import io.busload.analysis.cohort.CohortFlag;
import io.busload.analysis.cohort.DeviceFigure;
import io.busload.analysis.stats.Robust;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A simulated fleet with planted degraded devices, for the cohort check: which plants are caught, which are missed,
 * and how many healthy figures are flagged. Figures are in arbitrary units (only ratios within a cohort matter);
 * nothing here is a measurement.
 *
 * <p>The fleet: 12 H100s on driver 13.0 and 6 on 12.8 (two cohorts), 8 H200s, 4 A100s; six kernel cases. A healthy
 * card differs from its model by a per-card factor (sigma 0.7%) and a per-case factor (0.3%); its figure for a case
 * is the median of 5 results with 0.5% noise each.
 */
public final class FleetSimulation {

  private record Model(String name, String driver, int devices, double sm, double mem) {}

  /**
   * A degradation to plant.
   *
   * @param cases the kernel cases it hits (empty: all)
   * @param factor multiplies the card's figures (0.93: 7% slow)
   * @param sm the card's SM clock while degraded; null: the model's
   */
  public record Plant(String description, String model, String driver, List<String> cases, double factor, Double sm) {}

  /** One plant in one simulated fleet. */
  public record PlantResult(Plant plant, String deviceId, String kernelCase, boolean caught, String sentence) {}

  /** One simulated fleet: every plant's outcome and the healthy figures flagged. */
  public record Outcome(List<PlantResult> plants, int healthyFigures, List<CohortFlag> falseFlags) {}

  private static final List<Model> MODELS = List.of(
      new Model("NVIDIA H100 80GB HBM3", "13.0", 12, 1980, 2619),
      new Model("NVIDIA H100 80GB HBM3", "12.8", 6, 1980, 2619),
      new Model("NVIDIA H200", "13.0", 8, 1980, 3201),
      new Model("NVIDIA A100-SXM4-80GB", "13.0", 4, 1410, 1593));
  private static final Map<String, Double> CASES = new LinkedHashMap<>();

  static {
    CASES.put("memcpy-d2d size=67108864", 1.00);
    CASES.put("stride-copy-fp32 size=67108864;stride=1", 0.99);
    CASES.put("stride-copy-fp32 size=67108864;stride=4", 0.31);
    CASES.put("stride-copy-fp32 size=67108864;stride=32", 0.06);
    CASES.put("offset-copy-fp32 size=67108864;offset=1", 0.93);
    CASES.put("transpose-naive size=4096", 0.42);
  }

  /** What is planted in every simulated fleet, each on a different healthy card picked by the seed. */
  public static final List<Plant> PLANTS = List.of(
      new Plant("7% slow on every case, same clocks", "NVIDIA H100 80GB HBM3", "13.0", List.of(), 0.93, null),
      new Plant("12% slow, SM clock stuck at 1755 MHz", "NVIDIA H100 80GB HBM3", "13.0", List.of(), 0.88, 1755.0),
      new Plant("5% slow on stride=4 only", "NVIDIA H100 80GB HBM3", "12.8",
          List.of("stride-copy-fp32 size=67108864;stride=4"), 0.95, null),
      new Plant("10% slow on memcpy only", "NVIDIA H200", "13.0", List.of("memcpy-d2d size=67108864"), 0.90, null),
      new Plant("4% slow on every case", "NVIDIA H200", "13.0", List.of(), 0.96, null),
      new Plant("8% slow on every case, 3 peers", "NVIDIA A100-SXM4-80GB", "13.0", List.of(), 0.92, null),
      new Plant("6% fast on every case", "NVIDIA H100 80GB HBM3", "13.0", List.of(), 1.06, null),
      new Plant("2% slow on every case (inside the 3% floor)", "NVIDIA H100 80GB HBM3", "13.0", List.of(), 0.98,
          null));

  private FleetSimulation() {}

  public static Outcome run(long seed, CohortCheck check) {
    SplittableRandom random = new SplittableRandom(seed);
    List<DeviceFigure> figures = new ArrayList<>();
    Map<String, Plant> planted = new LinkedHashMap<>();
    Set<String> taken = new HashSet<>();
    for (Plant plant : PLANTS) {
      Model model = MODELS.stream().filter(m -> m.name().equals(plant.model()) && m.driver().equals(plant.driver()))
          .findFirst().orElseThrow();
      String device;
      do {
        device = deviceId(model, random.nextInt(model.devices()));
      } while (!taken.add(device));
      planted.put(device, plant);
    }
    for (Model model : MODELS) {
      for (int d = 0; d < model.devices(); d++) {
        String device = deviceId(model, d);
        double card = 1 + 0.007 * Corpus.gaussian(random);
        Plant plant = planted.get(device);
        for (Map.Entry<String, Double> c : CASES.entrySet()) {
          double factor = card * (1 + 0.003 * Corpus.gaussian(random));
          boolean hit = plant != null && (plant.cases().isEmpty() || plant.cases().contains(c.getKey()));
          if (hit) {
            factor *= plant.factor();
          }
          double[] results = new double[5];
          for (int i = 0; i < results.length; i++) {
            results[i] = c.getValue() * factor * (1 + 0.005 * Corpus.gaussian(random));
          }
          double sm = hit && plant.sm() != null ? plant.sm() : model.sm();
          figures.add(new DeviceFigure(device, model.name(), model.driver(), c.getKey(),
              c.getKey().substring(0, c.getKey().indexOf(' ')), Robust.median(results), sm, model.mem()));
        }
      }
    }
    List<CohortFlag> flags = check.flags(figures);
    Map<String, CohortFlag> flagged = new LinkedHashMap<>();
    flags.forEach(f -> flagged.put(f.deviceId() + "\n" + f.series(), f));
    List<PlantResult> results = new ArrayList<>();
    Set<String> plantedFigures = new HashSet<>();
    for (Map.Entry<String, Plant> p : planted.entrySet()) {
      for (String c : CASES.keySet()) {
        if (p.getValue().cases().isEmpty() || p.getValue().cases().contains(c)) {
          CohortFlag flag = flagged.get(p.getKey() + "\n" + c);
          plantedFigures.add(p.getKey() + "\n" + c);
          results.add(new PlantResult(p.getValue(), p.getKey(), c, flag != null, flag == null ? null : flag.sentence()));
        }
      }
    }
    List<CohortFlag> falseFlags = flags.stream().filter(f -> !plantedFigures.contains(f.deviceId() + "\n" + f.series()))
        .toList();
    return new Outcome(results, figures.size() - plantedFigures.size(), falseFlags);
  }

  private static String deviceId(Model model, int index) {
    return Words.model(model.name()).toLowerCase(Locale.ROOT) + "-" + model.driver() + "-" + index + "/cuda:0";
  }

  /** Caught and missed per plant over {@code fleets} seeds from {@code seed}, false flags, and one example each. */
  public static String markdown(long seed, int fleets, CohortCheck check) {
    Map<Plant, int[]> tally = new LinkedHashMap<>();
    Map<Plant, int[]> cards = new LinkedHashMap<>();
    Map<Plant, String> example = new LinkedHashMap<>();
    int healthy = 0;
    List<CohortFlag> falseFlags = new ArrayList<>();
    for (int i = 0; i < fleets; i++) {
      Outcome outcome = run(seed + i, check);
      healthy += outcome.healthyFigures();
      falseFlags.addAll(outcome.falseFlags());
      for (PlantResult r : outcome.plants()) {
        int[] t = tally.computeIfAbsent(r.plant(), k -> new int[2]);
        t[r.caught() ? 0 : 1]++;
        if (r.caught()) {
          example.putIfAbsent(r.plant(), r.deviceId() + ": " + r.sentence());
        }
      }
      for (Plant p : PLANTS) {
        boolean caught = outcome.plants().stream().anyMatch(r -> r.plant() == p && r.caught());
        cards.computeIfAbsent(p, k -> new int[2])[caught ? 0 : 1]++;
      }
    }
    StringBuilder md = new StringBuilder();
    md.append(fleets).append(" simulated fleets (seeds ").append(seed).append(" to ").append(seed + fleets - 1)
        .append("), 30 cards in 4 cohorts, 6 kernel cases; band max(")
        .append(check.settings().zCut()).append(" robust sigmas, ").append(Words.percent(
            check.settings().minRelativeBand())).append("), at least ").append(check.settings().minPeers())
        .append(" peers. A card is caught when at least one of its degraded cases is flagged; a figure is one card's ")
        .append("median for one case.\n\n| planted | model / driver | cards caught | figures caught | figures missed | ")
        .append("example flag |\n|---|---|---|---|---|---|\n");
    for (Map.Entry<Plant, int[]> e : tally.entrySet()) {
      Plant p = e.getKey();
      md.append("| ").append(p.description()).append(" | ").append(Words.model(p.model())).append(" / ")
          .append(p.driver()).append(" | ").append(cards.get(p)[0]).append('/').append(fleets).append(" | ")
          .append(e.getValue()[0]).append(" | ").append(e.getValue()[1]).append(" | ")
          .append(example.getOrDefault(p, "")).append(" |\n");
    }
    md.append("\nHealthy figures flagged: ").append(falseFlags.size()).append(" of ").append(healthy).append('.');
    for (CohortFlag f : falseFlags.stream().limit(5).toList()) {
      md.append("\n- ").append(f.deviceId()).append(": ").append(f.sentence());
    }
    return md.append('\n').toString();
  }
}
