package io.busload.dashboard.compare;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.busload.dashboard.base.ui.ChartOptions;
import io.busload.protocol.KernelResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** The Compare chart: grouped bars per kernel family, one group of naive / coalesced / best per subject. */
public final class CompareChart {
  /** What the bars measure. */
  public enum Scale {
    ABSOLUTE("GB/s"), FRACTION_OF_CEILING("% of measured ceiling"), FRACTION_OF_PEAK("% of theoretical peak"),
    /** GB/s over the average watts of the result's energy window; no bar where its energy was not read. */
    PER_WATT("GB/s per watt");

    public final String unit;

    Scale(String unit) {
      this.unit = unit;
    }
  }

  /** A device or a device model and its latest valid results, one per kernel and parameters. */
  public record Subject(String label, List<KernelResult> latest) {

    /**
     * The measured ceiling in bytes/s (as the CLI's and REST's): the best valid bandwidth of the run of
     * the subject's latest memcpy-d2d, memcpy included, since read-heavy kernels beat memcpy; null when no memcpy
     * was measured.
     */
    Double ceiling() {
      Optional<KernelResult> memcpy = latest.stream()
          .filter(r -> FamilyForms.MEMCPY.equals(r.kernel()) && r.bandwidth() != null).findFirst();
      return memcpy.map(m -> latest.stream()
          .filter(r -> r.bandwidth() != null && (m.runId() == null || m.runId().equals(r.runId())))
          .mapToDouble(KernelResult::bandwidth).max().orElseThrow()).orElse(null);
    }

    Double peak() {
      return latest.stream().map(r -> r.device().theoreticalPeakBytesPerSecond()).filter(p -> p > 0).findFirst()
          .orElse(null);
    }

    Map<String, List<KernelResult>> families() {
      return latest.stream().filter(r -> FamilyForms.family(r.kernel()) != null)
          .collect(Collectors.groupingBy(r -> FamilyForms.family(r.kernel()), TreeMap::new, Collectors.toList()));
    }
  }

  private CompareChart() {}

  /** Keeps the first (newest) result per kernel and parameters; results come newest first from the coordinator. */
  public static List<KernelResult> latest(List<KernelResult> newestFirst) {
    Map<String, KernelResult> latest = new LinkedHashMap<>();
    for (KernelResult r : newestFirst) {
      if (r.valid()) {
        latest.putIfAbsent(r.kernel() + "|" + r.params(), r);
      }
    }
    return new ArrayList<>(latest.values());
  }

  public static ObjectNode option(List<Subject> subjects, Scale scale, List<PublishedFigures.Figure> published) {
    TreeSet<String> families = new TreeSet<>();
    subjects.forEach(s -> families.addAll(s.families().keySet()));
    List<PublishedFigures.Figure> shown = scale == Scale.ABSOLUTE ? published.stream()
        .filter(f -> "GB/s".equals(f.unit()) && FamilyForms.publishedForm(f) != null).toList() : List.of();
    shown.forEach(f -> families.add(f.family()));
    List<String> categories = new ArrayList<>(families);

    ObjectNode option = ChartOptions.base("Kernel families: naive, coalesced, best",
        scale == Scale.ABSOLUTE ? "latest valid result per kernel and parameters"
            : scale == Scale.PER_WATT ? "bandwidth per watt of the GPU's draw; no bar where energy was not read"
            : "each as a fraction of its own device's " + (scale == Scale.FRACTION_OF_CEILING ? "measured ceiling (best of its run)" : "peak"));
    option.putObject("tooltip").put("trigger", "item").put("formatter", "{a}<br/>{b}: <b>{c} " + scale.unit + "</b>");
    ArrayNode x = ChartOptions.axis(option, "xAxis", "category", "kernel family").putArray("data");
    categories.forEach(x::add);
    ChartOptions.axis(option, "yAxis", "value",
        scale == Scale.ABSOLUTE ? ChartOptions.BANDWIDTH_AXIS : scale.unit);
    ArrayNode series = option.putArray("series");
    for (Subject subject : subjects) {
      Map<String, List<KernelResult>> byFamily = subject.families();
      Double ceiling = switch (scale) {
        case ABSOLUTE, PER_WATT -> 1e9;
        case FRACTION_OF_CEILING -> subject.ceiling() == null ? null : subject.ceiling() / 100;
        case FRACTION_OF_PEAK -> subject.peak() == null ? null : subject.peak() / 100;
      };
      for (FamilyForms.Form form : FamilyForms.Form.values()) {
        ObjectNode bars = series.addObject()
            .put("id", subject.label() + "|" + form)
            .put("name", subject.label() + " " + form.name().toLowerCase())
            .put("type", "bar");
        ArrayNode data = bars.putArray("data");
        for (String family : categories) {
          Optional<KernelResult> pick = ceiling == null ? Optional.empty()
              : FamilyForms.pick(form, byFamily.getOrDefault(family, List.of()));
          Double perWatt = scale != Scale.PER_WATT || pick.isEmpty() || pick.get().energy() == null ? null
              : pick.get().energy().gigabytesPerSecondPerWatt(pick.get().bandwidth());
          if (scale == Scale.PER_WATT) {
            if (perWatt == null) {
              data.addNull();
            } else {
              data.add(ChartOptions.round(perWatt, 3));
            }
          } else if (pick.isPresent()) {
            data.add(ChartOptions.round(pick.get().bandwidth() / ceiling, scale == Scale.ABSOLUTE ? 3 : 2));
          } else {
            data.addNull();
          }
        }
      }
    }
    Map<String, List<PublishedFigures.Figure>> bySource = shown.stream().collect(Collectors.groupingBy(
        f -> "published: " + f.device() + " " + FamilyForms.publishedForm(f).name().toLowerCase() + " (" + f.source()
            + ")", LinkedHashMap::new, Collectors.toList()));
    bySource.forEach((name, figures) -> {
      ObjectNode bars = series.addObject().put("id", name).put("name", name).put("type", "bar");
      bars.putObject("itemStyle").put("opacity", 0.45).put("borderType", "dashed").put("borderWidth", 1)
          .put("borderColor", "#555");
      Map<String, Double> value = figures.stream().collect(Collectors.toMap(PublishedFigures.Figure::family,
          PublishedFigures.Figure::value, Math::max));
      ArrayNode data = bars.putArray("data");
      categories.forEach(family -> {
        Double v = value.get(family);
        if (v == null) {
          data.addNull();
        } else {
          data.add(v);
        }
      });
    });
    return option;
  }
}
