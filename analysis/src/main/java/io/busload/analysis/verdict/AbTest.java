package io.busload.analysis.verdict;

import io.busload.analysis.Words;
import io.busload.analysis.stats.HodgesLehmann;
import io.busload.analysis.stats.Robust;
import io.busload.analysis.stats.Shift;
import java.util.List;

/**
 * The A/B verdict on raw samples, the way nvbench-compare calls SAME/FAST/SLOW/AMBIGUOUS, but on ranks: a
 * Mann-Whitney test (no normality assumed; benchmark noise is skewed and often bimodal) and the Hodges-Lehmann
 * shift with the interval that inverts the same test.
 * <ul>
 *   <li>FASTER / SLOWER: the interval leaves out zero (p below 1 - confidence) and the shift is at least the
 *       threshold;
 *   <li>SAME: the whole interval lies within plus or minus the threshold;
 *   <li>UNCLEAR: anything else, or too few samples, or a side that cannot be compared; the reason says which.
 * </ul>
 */
public final class AbTest {
  private AbTest() {}

  public static Comparison compare(Side baseline, Side candidate, Thresholds thresholds) {
    List<String> notes = SettingNotes.notes(Verdict.UNCLEAR, baseline.setting(), candidate.setting());
    int nb = baseline.values().size();
    int nc = candidate.values().size();
    Double mb = nb > 0 ? Robust.median(baseline.array()) : null;
    Double mc = nc > 0 ? Robust.median(candidate.array()) : null;
    String unusable = baseline.unusable() != null ? "the baseline " + baseline.unusable()
        : candidate.unusable() != null ? "the candidate " + candidate.unusable() : null;
    if (unusable != null) {
      return new Comparison(Verdict.UNCLEAR, unusable, nb, nc, mb, mc, null, null, null, null, notes);
    }
    if (nb < thresholds.minSamples() || nc < thresholds.minSamples()) {
      String which = nb < thresholds.minSamples() ? "the baseline has " + nb : "the candidate has " + nc;
      return new Comparison(Verdict.UNCLEAR, which + " sample" + (Math.min(nb, nc) == 1 ? "" : "s")
          + "; a verdict needs at least " + thresholds.minSamples() + " on each side", nb, nc, mb, mc, null, null,
          null, null, notes);
    }
    if (mb == 0) {
      return new Comparison(Verdict.UNCLEAR, "the baseline's median is 0, so no relative shift exists", nb, nc, mb,
          mc, null, null, null, null, notes);
    }
    Shift shift = HodgesLehmann.shift(baseline.array(), candidate.array(), thresholds.confidence());
    double scale = Math.abs(mb);
    double rel = shift.estimate() / scale;
    double lo = shift.lower() / scale;
    double hi = shift.upper() / scale;
    double t = thresholds.minShift();
    String interval = String.format(java.util.Locale.ROOT, "%.0f%% interval %s to %s", 100 * shift.confidence(),
        Words.signedPercent(lo), Words.signedPercent(hi));
    Verdict verdict;
    String reason;
    if (shift.excludesZero() && Math.abs(rel) >= t) {
      verdict = rel < 0 ? Verdict.SLOWER : Verdict.FASTER;
      reason = Words.signedPercent(rel) + " (" + interval + ", p=" + p(shift.pValue()) + ")";
    } else if (lo > -t && hi < t) {
      verdict = Verdict.SAME;
      reason = Words.signedPercent(rel) + ", the whole " + interval + " within ±" + Words.percent(t);
    } else if (shift.excludesZero()) {
      verdict = Verdict.UNCLEAR;
      reason = Words.signedPercent(rel) + " is below the ±" + Words.percent(t) + " threshold but its " + interval
          + " reaches past it";
    } else {
      verdict = Verdict.UNCLEAR;
      reason = "no significant shift (p=" + p(shift.pValue()) + ") and the " + interval + " reaches past ±"
          + Words.percent(t) + ": more samples would decide";
    }
    return new Comparison(verdict, reason, nb, nc, mb, mc, shift, rel, lo, hi,
        SettingNotes.notes(verdict, baseline.setting(), candidate.setting()));
  }

  private static String p(double p) {
    return p < 0.001 ? "<0.001" : String.format(java.util.Locale.ROOT, "%.3f", p);
  }
}
