package io.busload.analysis.verdict;

import io.busload.analysis.Words;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What differed between two results besides the code under test, one sentence each, so a verdict is read with it.
 * A clock or throttle difference that points the same way as the verdict comes first and says so: "slower at a
 * lower SM clock (1755 MHz vs 1980 MHz)".
 */
final class SettingNotes {
  /** Clocks closer than this fraction are the same clock (nvidia-smi rounds, boost wanders by a bin or two). */
  static final double SAME_CLOCK = 0.01;

  private SettingNotes() {}

  static List<String> notes(Verdict verdict, Setting baseline, Setting candidate) {
    List<String> first = new ArrayList<>();
    List<String> rest = new ArrayList<>();
    if (baseline == null || candidate == null) {
      return rest;
    }
    Conditions b = baseline.conditions();
    Conditions c = candidate.conditions();
    clock(verdict, "SM clock", b.smMHz(), c.smMHz(), first, rest);
    clock(verdict, "memory clock", b.memMHz(), c.memMHz(), first, rest);
    if (c.throttling() && !b.throttling()) {
      (verdict == Verdict.SLOWER ? first : rest).add(verdict == Verdict.SLOWER ? "slower while throttling"
          : "the candidate was throttling");
    } else if (b.throttling() && !c.throttling()) {
      rest.add("the baseline was throttling");
    } else if (c.throttling()) {
      rest.add("both were throttling");
    }
    if (c.shared() != b.shared()) {
      rest.add((c.shared() ? "the candidate" : "the baseline") + " shared the GPU with other processes");
    }
    if (!Objects.equals(baseline.deviceName(), candidate.deviceName())) {
      rest.add("different models: " + baseline.deviceName() + " vs " + candidate.deviceName());
    } else if (known(baseline.fingerprint(), candidate.fingerprint())
        && !baseline.fingerprint().equals(candidate.fingerprint())) {
      rest.add("another device of the same model (fingerprint " + baseline.fingerprint() + " vs "
          + candidate.fingerprint() + ")");
    }
    changed(rest, "driver", baseline.driver(), candidate.driver());
    changed(rest, "agent", baseline.agentVersion(), candidate.agentVersion());
    if (known(baseline.fatbinHash(), candidate.fatbinHash()) && !baseline.fatbinHash().equals(candidate.fatbinHash())) {
      rest.add("kernels rebuilt (fatbin " + abbreviate(baseline.fatbinHash()) + " → "
          + abbreviate(candidate.fatbinHash()) + ")");
    }
    first.addAll(rest);
    return first;
  }

  private static void clock(Verdict verdict, String what, Double before, Double after, List<String> first,
      List<String> rest) {
    if (before == null && after == null) {
      return;
    }
    if (before == null || after == null) {
      rest.add(what + " recorded on one side only");
      return;
    }
    if (Math.abs(after - before) <= SAME_CLOCK * before) {
      return;
    }
    if (verdict == Verdict.SLOWER && after < before) {
      first.add("slower at a lower " + what + " (" + Words.mhz(after) + " vs " + Words.mhz(before) + ")");
    } else if (verdict == Verdict.FASTER && after > before) {
      first.add("faster at a higher " + what + " (" + Words.mhz(after) + " vs " + Words.mhz(before) + ")");
    } else {
      rest.add(what + " " + Words.mhz(before) + " → " + Words.mhz(after) + " ("
          + Words.signedPercent((after - before) / before) + ")");
    }
  }

  /** Both sides state it: a CSV file states no driver, and that is no difference. */
  private static boolean known(String before, String after) {
    return before != null && after != null;
  }

  private static void changed(List<String> notes, String what, String before, String after) {
    if (known(before, after) && !before.equals(after)) {
      notes.add(what + " " + before + " → " + after);
    }
  }

  private static String abbreviate(String hash) {
    return hash == null ? "none" : hash.substring(0, Math.min(8, hash.length()));
  }
}
