package io.busload.agent.crosscheck;

import io.busload.protocol.Counters;
import io.busload.protocol.KernelResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link ProfileReport}'s rows as the {@link Counters} of the results they belong to, so that a profiled run's
 * counters travel with its results to the coordinator instead of only being printed.
 *
 * <p>A row is matched to a result by kernel and parameters compared as name/value pairs: the plan writes a case's
 * parameters in axis order, the result holds them sorted by name.
 */
public final class ProfileCounters {
  /** What every counters record says of how it was taken (the method column of the native cross-check). */
  public static final String METHOD = "Nsight Compute (ncu --clock-control none): one launch of each kernel step of"
      + " the case, run by the native harness (deploy/gpu/crosscheck.cu --once) from the same fatbin and plan as the"
      + " timed measurement; sums over the case's launches";

  private ProfileCounters() {}

  /** The counters of each profiled case, by {@link #key(String, Map)}. */
  public static Map<String, Counters> byCase(ProfileReport.Report report) {
    Map<String, Counters> counters = new LinkedHashMap<>();
    for (ProfileReport.Row row : report.rows()) {
      counters.put(key(row.kernel(), parse(row.params())), counters(row));
    }
    return counters;
  }

  static Counters counters(ProfileReport.Row row) {
    ProfileReport.Side loads = row.loads();
    ProfileReport.Side stores = row.stores();
    return new Counters(figure(loads.sectorsPerRequest()), figure(loads.modelSectorsPerRequest()),
        figure(stores.sectorsPerRequest()), figure(stores.modelSectorsPerRequest()), figure(loads.dramBytes()),
        figure(loads.modelSectorBytes()), figure(stores.dramBytes()), figure(stores.modelSectorBytes()),
        row.flagged(), row.flags(), row.kernels(), METHOD);
  }

  /** Each result with its case's counters; a result of a case ncu did not profile (memcpy, cuBLAS) stays as it is. */
  public static List<KernelResult> attach(List<KernelResult> results, Map<String, Counters> counters) {
    List<KernelResult> attached = new ArrayList<>(results.size());
    for (KernelResult result : results) {
      attached.add(attach(result, counters));
    }
    return attached;
  }

  public static KernelResult attach(KernelResult result, Map<String, Counters> counters) {
    Counters found = counters.get(key(result.kernel(), result.params()));
    return found == null ? result : result.withCounters(found);
  }

  /** Kernel name and parameters as sorted name=value text: the same for the plan's row and the result. */
  static String key(String kernel, Map<String, ?> params) {
    StringBuilder key = new StringBuilder(kernel);
    new TreeMap<>(params).forEach((name, value) -> key.append('|').append(name).append('=').append(value));
    return key.toString();
  }

  /** {@code size=1048576;stride=4} as a map (values stay text: compared as the result's values print). */
  static Map<String, String> parse(String params) {
    Map<String, String> map = new TreeMap<>();
    for (String pair : params.split(";")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        map.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return map;
  }

  /** NaN is what the report holds where ncu counted nothing or the model has no access: none, not a number. */
  private static Double figure(double value) {
    return Double.isFinite(value) ? value : null;
  }
}
