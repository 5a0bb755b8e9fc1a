package io.busload.protocol;

/**
 * The benchmark that measured a result when it was not Busload: a pushed file of another tool's output (BabelStream's
 * CSV). Such a result passed that tool's own check, not Busload's, and its figures are that tool's statistics, which
 * this record names so that no reader takes them for Busload's median of samples.
 *
 * @param tool the tool's name, as it calls itself ("BabelStream")
 * @param version the tool's version, as it prints it ("5.0"), or as the pusher gave it where the file omits it
 * @param centre what the result's {@code medianSeconds} holds: {@link #MEAN}, {@link #MEDIAN} or {@link #MIN}
 * @param check how the tool judged its output ("check_solution: relative error within 100 ulp; the tool prints
 *     nothing when it fails")
 */
public record MeasuredBy(String tool, String version, String centre, String check) {
  public static final String MEAN = "mean";
  public static final String MEDIAN = "median";
  public static final String MIN = "min";

  /** "BabelStream 5.0": for tooltips, run pages and logs. */
  public String describe() {
    return tool + " " + version;
  }
}
