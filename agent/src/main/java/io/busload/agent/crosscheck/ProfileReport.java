package io.busload.agent.crosscheck;

import io.busload.agent.measure.Plan;
import io.busload.kernels.Coalescing;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import io.busload.kernels.Traffic;
import io.busload.kernels.WarpSimulator;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Hardware counters of one launch of each case (ncu, {@link NcuCsv}) beside the program's model:
 * sectors per request of global loads and stores against {@link Program#coalescing()}, DRAM bytes against
 * {@link Program#traffic()}.
 *
 * <p>The model's sectors per request of a side is the mean over that side's accesses, each weighted alike (every
 * access of our kernels issues one request per warp and iteration); the measured one is the case's sectors over
 * its requests, summed over its kernel launches. DRAM bytes lie between the useful bytes (each byte once, plus
 * {@link Program#overhead()}: a reduction's partial sums) and the
 * bytes of the sectors the model predicts (useful x sectors x 32 / requested bytes): below the first the data
 * came from L2, above the second the DRAM moved more than the sectors (its own granularity, 64 bytes on an H200).
 * A measured value more than {@link #TOLERANCE} away from the model (or outside that range) is flagged.
 */
public final class ProfileReport {
  public static final double TOLERANCE = 0.10;
  public static final String LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
  public static final String LD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
  public static final String ST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
  public static final String ST_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
  public static final String DRAM_READ = "dram__bytes_read.sum";
  public static final String DRAM_WRITE = "dram__bytes_write.sum";
  public static final List<String> METRICS = List.of(LD_SECTORS, LD_REQUESTS, ST_SECTORS, ST_REQUESTS, DRAM_READ,
      DRAM_WRITE);

  /** Measured and modelled figures of one side (loads or stores) of one case. NaN where there is none. */
  public record Side(double sectorsPerRequest, double modelSectorsPerRequest, double dramBytes, double usefulBytes,
      double modelSectorBytes) {}

  /**
   * One case.
   *
   * @param kernels the entry points ncu profiled for it, in order
   * @param flags what differs from the model, empty when nothing does
   */
  public record Row(String kernel, String params, List<String> kernels, Side loads, Side stores, List<String> flags) {
    public Row {
      kernels = List.copyOf(kernels);
      flags = List.copyOf(flags);
    }

    public boolean flagged() {
      return !flags.isEmpty();
    }
  }

  /** The rows and what could not be matched (launch counts or names that differ from the plan). */
  public record Report(List<Row> rows, List<String> problems) {
    public Report {
      rows = List.copyOf(rows);
      problems = List.copyOf(problems);
    }
  }

  private ProfileReport() {}

  /**
   * Assigns the profiled launches, in order, to the kernel steps of the plan's running cases, in order (the
   * harness ran each case's steps once, and ncu saw only {@code busload_} entry points). A case without kernel
   * steps (memcpy, cuBLAS) has no counters.
   */
  public static Report build(Plan plan, List<NcuCsv.Launch> launches) {
    List<Row> rows = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    int next = 0;
    for (Plan.Planned planned : plan.cases()) {
      if (planned.program() == null) {
        continue;
      }
      String kernel = planned.kernelCase().spec().name();
      String params = PlanFile.params(planned);
      List<String> entries = planned.program().steps().stream().filter(s -> s instanceof Step.Kernel)
          .map(s -> ((Step.Kernel) s).entryPoint()).toList();
      if (entries.isEmpty()) {
        continue;
      }
      List<NcuCsv.Launch> mine = new ArrayList<>();
      for (String entry : entries) {
        if (next >= launches.size()) {
          problems.add(kernel + " " + params + ": ncu reported no launch of " + entry + " (" + launches.size()
              + " launches in all)");
          break;
        }
        NcuCsv.Launch launch = launches.get(next++);
        if (!sameKernel(launch.kernelName(), entry)) {
          problems.add(kernel + " " + params + ": expected " + entry + ", ncu launch " + launch.id() + " is "
              + launch.kernelName() + "; the remaining launches are not matched");
          return new Report(rows, problems);
        }
        mine.add(launch);
      }
      if (mine.size() == entries.size()) {
        rows.add(row(kernel, params, planned.program(), mine));
      }
    }
    if (next < launches.size()) {
      problems.add((launches.size() - next) + " ncu launches beyond the plan's kernel steps were not matched");
    }
    return new Report(rows, problems);
  }

  /** ncu names an {@code extern "C"} entry point as it is, a C++ one with its parameter list. */
  static boolean sameKernel(String ncuName, String entryPoint) {
    return ncuName.equals(entryPoint) || ncuName.startsWith(entryPoint + "(");
  }

  static Row row(String kernel, String params, Program program, List<NcuCsv.Launch> launches) {
    Traffic traffic = program.traffic();
    Traffic overhead = program.overhead();
    List<Coalescing> model = program.coalescing();
    Side loads = side(launches, LD_SECTORS, LD_REQUESTS, DRAM_READ, traffic.bytesRead() + overhead.bytesRead(),
        model.stream().filter(c -> !c.store()).toList());
    Side stores = side(launches, ST_SECTORS, ST_REQUESTS, DRAM_WRITE, traffic.bytesWritten() + overhead.bytesWritten(),
        model.stream().filter(Coalescing::store).toList());
    List<String> flags = new ArrayList<>();
    flag(flags, "loads", loads);
    flag(flags, "stores", stores);
    return new Row(kernel, params, launches.stream().map(NcuCsv.Launch::kernelName).toList(), loads, stores, flags);
  }

  private static Side side(List<NcuCsv.Launch> launches, String sectorsMetric, String requestsMetric,
      String dramMetric, long useful, List<Coalescing> accesses) {
    double sectors = sum(launches, sectorsMetric);
    double requests = sum(launches, requestsMetric);
    double measured = requests > 0 ? sectors / requests : Double.NaN;
    double modelSectors = Double.NaN;
    double modelBytes = Double.NaN;
    if (!accesses.isEmpty()) {
      modelSectors = accesses.stream().mapToInt(Coalescing::sectorsPerRequest).average().orElseThrow();
      double sectorBytes = accesses.stream().mapToLong(c -> (long) c.sectorsPerRequest() * WarpSimulator.SECTOR_BYTES)
          .sum();
      double requested = accesses.stream().mapToLong(Coalescing::requestedBytesPerRequest).sum();
      modelBytes = useful * sectorBytes / requested;
    }
    return new Side(measured, modelSectors, sum(launches, dramMetric), useful, modelBytes);
  }

  private static double sum(List<NcuCsv.Launch> launches, String metric) {
    double total = 0;
    for (NcuCsv.Launch launch : launches) {
      double v = launch.metric(metric);
      if (Double.isNaN(v)) {
        return Double.NaN;
      }
      total += v;
    }
    return total;
  }

  private static void flag(List<String> flags, String what, Side side) {
    if (!Double.isNaN(side.modelSectorsPerRequest())) {
      if (Double.isNaN(side.sectorsPerRequest())) {
        flags.add(what + ": the model has accesses, ncu counted no requests");
      } else if (differs(side.sectorsPerRequest(), side.modelSectorsPerRequest())) {
        flags.add(String.format(Locale.ROOT, "%s: %.2f sectors/request measured, %.2f modelled", what,
            side.sectorsPerRequest(), side.modelSectorsPerRequest()));
      }
    }
    if (Double.isNaN(side.dramBytes()) || side.usefulBytes() <= 0) {
      return;
    }
    if (side.dramBytes() < (1 - TOLERANCE) * side.usefulBytes()) {
      flags.add(String.format(Locale.ROOT, "%s: DRAM %.3g B below the %.3g useful B (L2 held part of it: reuse, or writes not yet written back)", what,
          side.dramBytes(), side.usefulBytes()));
    } else if (!Double.isNaN(side.modelSectorBytes()) && side.dramBytes() > (1 + TOLERANCE) * side.modelSectorBytes()) {
      flags.add(String.format(Locale.ROOT, "%s: DRAM %.3g B above the %.3g B of the modelled sectors", what,
          side.dramBytes(), side.modelSectorBytes()));
    }
  }

  static boolean differs(double measured, double model) {
    return Math.abs(measured - model) > TOLERANCE * Math.abs(model);
  }

  public static void print(Report report, PrintWriter out) {
    out.println("| kernel | params | ld sectors/req | model | st sectors/req | model | DRAM read MB | useful..model MB"
        + " | DRAM written MB | useful..model MB | flag |");
    out.println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    for (Row r : report.rows()) {
      out.println("| " + r.kernel() + " | " + r.params() + " | " + num(r.loads().sectorsPerRequest()) + " | "
          + num(r.loads().modelSectorsPerRequest()) + " | " + num(r.stores().sectorsPerRequest()) + " | "
          + num(r.stores().modelSectorsPerRequest()) + " | " + mb(r.loads().dramBytes()) + " | " + range(r.loads())
          + " | " + mb(r.stores().dramBytes()) + " | " + range(r.stores()) + " | "
          + (r.flagged() ? "FLAG " + String.join("; ", r.flags()) : "") + " |");
    }
    long flagged = report.rows().stream().filter(Row::flagged).count();
    out.println(flagged + " of " + report.rows().size() + " profiled cases flagged (model vs measured beyond "
        + Math.round(TOLERANCE * 100) + "%)");
    report.problems().forEach(p -> out.println("profile: " + p));
    out.flush();
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String mb(double bytes) {
    return Double.isNaN(bytes) ? "-" : String.format(Locale.ROOT, "%.1f", bytes / 1e6);
  }

  private static String range(Side side) {
    return mb(side.usefulBytes()) + ".." + mb(side.modelSectorBytes());
  }
}
