package io.busload.dashboard.compare;

import io.busload.protocol.KernelResult;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Kernels grouped into families, and in each family which result is the naive form, which the coalesced one, and
 * which the best: the bars of the Compare view.
 *
 * <p>Named variants decide where the catalog names them (transpose-naive / transpose-tiled, particles-aos /
 * particles-soa, gather-random / gather-sorted, reduction-interleaved / reduction-sequential, conv2d and matmul
 * naive / coalesced). Parametric copies decide by parameter: stride 1 or offset 0 is the coalesced form, the
 * slowest other one the naive form. Best is the fastest of the family, references (cuBLAS, the transpose copy
 * bound) left out: they are ceilings, not forms of the kernel.
 */
public final class FamilyForms {
  public enum Form { NAIVE, COALESCED, BEST }

  private static final Pattern COPY_FAMILY = Pattern.compile("^((stride|offset|typed|vector)-copy).*");
  private static final List<String> NAIVE_WORDS = List.of("naive", "aos", "random", "interleaved", "row-per-thread");
  private static final List<String> COALESCED_WORDS = List.of("coalesced", "soa", "tiled", "sorted", "sequential",
      "col-per-thread");
  private static final List<String> REFERENCES = List.of("cublas", "transpose-copy");
  public static final String MEMCPY = "memcpy-d2d";

  private FamilyForms() {}

  /** The family of a kernel name; null for the memcpy ceiling, which is no family's member. */
  public static String family(String kernel) {
    if (kernel == null || kernel.equals(MEMCPY)) {
      return null;
    }
    var copy = COPY_FAMILY.matcher(kernel);
    if (copy.matches()) {
      return copy.group(1);
    }
    int dash = kernel.indexOf('-');
    return dash < 0 ? kernel : kernel.substring(0, dash);
  }

  /** The result that stands for {@code form} among one family's valid results, if any does. */
  public static Optional<KernelResult> pick(Form form, Collection<KernelResult> family) {
    List<KernelResult> valid = family.stream().filter(r -> r.bandwidth() != null).toList();
    return switch (form) {
      case BEST -> valid.stream().filter(r -> !isReference(r.kernel()))
          .max(Comparator.comparingDouble(KernelResult::bandwidth));
      case COALESCED -> named(valid, COALESCED_WORDS).or(() -> valid.stream()
          .filter(r -> Objects.equals(number(r, "stride"), 1.0) || Objects.equals(number(r, "offset"), 0.0))
          .max(Comparator.comparingDouble(KernelResult::bandwidth)));
      case NAIVE -> named(valid, NAIVE_WORDS).or(() -> valid.stream()
          .filter(r -> !isReference(r.kernel()))
          .filter(r -> !Objects.equals(number(r, "stride"), 1.0) && !Objects.equals(number(r, "offset"), 0.0))
          .min(Comparator.comparingDouble(KernelResult::bandwidth)));
    };
  }

  static boolean isReference(String kernel) {
    return REFERENCES.stream().anyMatch(kernel::contains);
  }

  private static Optional<KernelResult> named(List<KernelResult> valid, List<String> words) {
    for (String word : words) {
      Optional<KernelResult> hit = valid.stream()
          .filter(r -> List.of(r.kernel().split("-")).contains(word) || r.kernel().endsWith("-" + word))
          .max(Comparator.comparingDouble(KernelResult::bandwidth));
      if (hit.isPresent()) {
        return hit;
      }
    }
    return Optional.empty();
  }

  private static Double number(KernelResult result, String name) {
    Object value = result.params().get(name);
    if (value instanceof Number n) {
      return n.doubleValue();
    }
    if (value instanceof String s) {
      try {
        return Double.parseDouble(s);
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  /** Which form a published figure stands for, from its variant and parameter; null when none fits. */
  public static Form publishedForm(PublishedFigures.Figure figure) {
    String text = (figure.variant() + " " + figure.parameter()).toLowerCase();
    if (text.contains("stride=1 ") || text.endsWith("stride=1") || text.contains("tiled-padded")) {
      return text.contains("tiled-padded") ? Form.BEST : Form.COALESCED;
    }
    if (text.contains("stride=32") || text.startsWith("naive") || text.startsWith("aos ")) {
      return Form.NAIVE;
    }
    if (text.startsWith("soa") || text.startsWith("tiled") || text.startsWith("coalesced")) {
      return Form.COALESCED;
    }
    return null;
  }
}
