package io.busload.agent.crosscheck;

import io.busload.agent.measure.Plan;
import io.busload.agent.measure.SamplingMethod;
import io.busload.agent.measure.StoppingRule;
import io.busload.agent.report.CsvPrinter;
import io.busload.kernels.Arg;
import io.busload.kernels.Buffer;
import io.busload.kernels.Dim3;
import io.busload.kernels.ElementType;
import io.busload.kernels.Program;
import io.busload.kernels.Step;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A resolved {@link Plan} as line-oriented text that deploy/gpu/crosscheck.cu reads with {@code >>} (tokens
 * separated by spaces; nothing but a skip reason holds a space, and it ends its line):
 *
 * <pre>
 * busload-plan 2 SUITE DEVICE
 * method WARMUP_SAMPLES MIN_WARMUP_LAUNCHES SAMPLE_TARGET_S MAX_LAUNCHES_PER_SAMPLE MIN_SAMPLES WINDOW MAX_SPREAD
 *        TIME_CAP_S MAX_SAMPLES      (how the agent samples on this device ({@link SamplingMethod}): the harness warms
 *                                     up, calibrates and stops exactly so; absent from plans for a profiler)
 * case KERNEL PARAMS                 (PARAMS exactly as the CSV's params column: size=67108864;stride=4)
 * buffer INDEX NAME TYPE ELEMENTS BYTES ROLE FILL [MEMORY]
 *                                    (ROLE input, inout, output or scratch; FILL random, iota, permutation
 *                                     for inputs and inouts ({@link Program#fillHint}), poison for outputs,
 *                                     none for scratch; MEMORY peer, pinned, mapped or pageable where the
 *                                     buffer is not in this device's memory, absent otherwise)
 * kernel ENTRY GX GY GZ BX BY BZ SHARED NARGS ARG...
 *                                    (ARG buf:I, i32:V, i64:V, f32:0xBITS, f64:0xBITS: exact, in C order)
 * copy DST SRC BYTES                 (cuMemcpyDtoDAsync)
 * memset32 BUFFER VALUE COUNT        (cuMemsetD32Async)
 * sgemm M N K A B C                  (row-major C = A x B through cuBLAS)
 * link DST SRC BYTES                 (a copy engine's copy wherever the buffers live: cuMemcpy*Async)
 * concurrent N                       (the next N steps run at once, each on a stream of its own)
 * end
 * skip KERNEL PARAMS REASON...       (a case the agent would not run on this device)
 * </pre>
 */
public final class PlanFile {
  public static final String MAGIC = "busload-plan";
  public static final int VERSION = 2;

  private PlanFile() {}

  /** One case as the text carries it; {@code skipReason} null when it runs, buffers and steps empty when not. */
  public record Case(String kernel, String params, List<Buffer> buffers, List<String> fills, List<Step> steps,
      String skipReason) {
    public Case {
      buffers = List.copyOf(buffers);
      fills = List.copyOf(fills);
      steps = List.copyOf(steps);
    }

    public boolean runs() {
      return skipReason == null;
    }

    /** The entry points of its kernel steps in launch order (what a profiler sees of one launch). */
    public List<String> entryPoints() {
      return steps.stream().filter(s -> s instanceof Step.Kernel).map(s -> ((Step.Kernel) s).entryPoint()).toList();
    }
  }

  /** The params column of a result of this case: its parameters and {@code size}, as {@link CsvPrinter} writes them. */
  public static String params(Plan.Planned planned) {
    Map<String, Object> params = new LinkedHashMap<>(planned.kernelCase().params());
    params.put("size", planned.size());
    return CsvPrinter.params(params);
  }

  /** The plan without a method line: enough for a profiler, which runs each case once ({@code --once}). */
  public static String write(Plan plan, String deviceId) {
    return write(plan, deviceId, null);
  }

  /** The plan and how the agent samples ({@code sampling}; null for none), for the native cross-check. */
  public static String write(Plan plan, String deviceId, SamplingMethod sampling) {
    StringBuilder text = new StringBuilder();
    text.append(MAGIC).append(' ').append(VERSION).append(' ').append(plan.suite()).append(' ').append(deviceId)
        .append('\n');
    if (sampling != null) {
      text.append(method(sampling)).append('\n');
    }
    for (Plan.Planned planned : plan.cases()) {
      String kernel = planned.kernelCase().spec().name();
      String params = token(params(planned));
      if (planned.program() == null) {
        text.append("skip ").append(kernel).append(' ').append(params).append(' ')
            .append(planned.skipReason().replace('\n', ' ')).append('\n');
        continue;
      }
      Program program = planned.program();
      text.append("case ").append(kernel).append(' ').append(params).append('\n');
      List<Buffer> buffers = program.buffers();
      for (int i = 0; i < buffers.size(); i++) {
        Buffer b = buffers.get(i);
        text.append("buffer ").append(i).append(' ').append(token(b.name())).append(' ').append(b.type().label())
            .append(' ').append(b.elements()).append(' ').append(b.bytes()).append(' ')
            .append(b.role().name().toLowerCase(Locale.ROOT)).append(' ').append(fill(program, i, b))
            .append(b.memory() == Buffer.Memory.DEVICE ? "" : " " + b.memory().name().toLowerCase(Locale.ROOT))
            .append('\n');
      }
      for (Step step : program.steps()) {
        text.append(step(step)).append('\n');
      }
      text.append("end\n");
    }
    return text.toString();
  }

  /** The method line: numbers in Java's shortest round-trip form, which C's strtod reads back exactly. */
  static String method(SamplingMethod s) {
    StoppingRule r = s.rule();
    return "method " + s.warmupSamples() + " " + s.minWarmupLaunches() + " " + s.sampleTargetSeconds() + " "
        + s.maxLaunchesPerSample() + " " + r.minSamples() + " " + r.window() + " " + r.maxSpread() + " "
        + r.timeCapSeconds() + " " + r.maxSamples();
  }

  /** The method line of {@code text} read back, or empty when it has none. */
  public static java.util.Optional<SamplingMethod> sampling(String text) {
    for (String line : text.split("\n")) {
      String[] t = line.strip().split(" ");
      if (t[0].equals("method")) {
        if (t.length != 10) {
          throw new IllegalArgumentException("plan: method line needs 9 numbers, got " + (t.length - 1));
        }
        return java.util.Optional.of(new SamplingMethod(i(t[1]), i(t[2]), Double.parseDouble(t[3]), i(t[4]),
            new StoppingRule(i(t[5]), i(t[6]), Double.parseDouble(t[7]), Double.parseDouble(t[8]), i(t[9]))));
      }
    }
    return java.util.Optional.empty();
  }

  private static String fill(Program program, int index, Buffer buffer) {
    return switch (buffer.role()) {
      case INPUT, INOUT -> token(program.fillHint(index));
      case OUTPUT -> "poison";
      case SCRATCH -> "none";
    };
  }

  static String step(Step step) {
    return switch (step) {
      case Step.Kernel k -> {
        StringBuilder line = new StringBuilder("kernel ").append(k.entryPoint());
        for (Dim3 d : List.of(k.grid(), k.block())) {
          line.append(' ').append(d.x()).append(' ').append(d.y()).append(' ').append(d.z());
        }
        line.append(' ').append(k.sharedBytes()).append(' ').append(k.args().size());
        k.args().forEach(a -> line.append(' ').append(arg(a)));
        yield line.toString();
      }
      case Step.DeviceCopy c -> "copy " + c.dstBuffer() + " " + c.srcBuffer() + " " + c.bytes();
      case Step.Memset32 m -> "memset32 " + m.buffer() + " " + m.value() + " " + m.count();
      case Step.Sgemm g -> "sgemm " + g.m() + " " + g.n() + " " + g.k() + " " + g.a() + " " + g.b() + " " + g.c();
      case Step.Copy c -> "link " + c.dstBuffer() + " " + c.srcBuffer() + " " + c.bytes();
      case Step.Concurrent c -> "concurrent " + c.steps().size() + "\n"
          + String.join("\n", c.steps().stream().map(PlanFile::step).toList());
    };
  }

  static String arg(Arg arg) {
    return switch (arg) {
      case Arg.Buf b -> "buf:" + b.index();
      case Arg.I32 i -> "i32:" + i.value();
      case Arg.I64 l -> "i64:" + l.value();
      case Arg.F32 f -> "f32:0x" + Integer.toHexString(Float.floatToRawIntBits(f.value()));
      case Arg.F64 d -> "f64:0x" + Long.toHexString(Double.doubleToRawLongBits(d.value()));
    };
  }

  /** A field that must stay one token: empty becomes {@code -}, a space is refused (a bug in the catalog). */
  private static String token(String value) {
    if (value.isEmpty()) {
      return "-";
    }
    if (value.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("plan: '" + value + "' holds whitespace and cannot be one token");
    }
    return value;
  }

  /** Reads the text back; {@link IllegalArgumentException} naming the line on anything it does not know. */
  public static List<Case> parse(String text) {
    List<Case> cases = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    if (lines.length == 0 || !lines[0].startsWith(MAGIC + " " + VERSION + " ")) {
      throw new IllegalArgumentException("plan: line 1 must start with '" + MAGIC + " " + VERSION + "'");
    }
    String kernel = null;
    String params = null;
    List<Buffer> buffers = new ArrayList<>();
    List<String> fills = new ArrayList<>();
    List<Step> steps = new ArrayList<>();
    int concurrent = 0; // steps still to gather into the open concurrent step
    int concurrentFrom = 0;
    for (int n = 1; n < lines.length; n++) {
      String line = lines[n].strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] t = line.split(" ");
      try {
        switch (t[0]) {
          case "method" -> { } // read by sampling(text)
          case "skip" -> cases.add(new Case(t[1], untoken(t[2]), List.of(), List.of(), List.of(),
              line.substring(t[0].length() + t[1].length() + t[2].length() + 3)));
          case "case" -> {
            kernel = t[1];
            params = untoken(t[2]);
            buffers.clear();
            fills.clear();
            steps.clear();
          }
          case "buffer" -> {
            if (Integer.parseInt(t[1]) != buffers.size()) {
              throw new IllegalArgumentException("buffer index " + t[1] + " out of order");
            }
            Buffer b = new Buffer(t[2], ElementType.ofLabel(t[3]), Long.parseLong(t[4]),
                Buffer.Role.valueOf(t[6].toUpperCase(Locale.ROOT)),
                t.length > 8 ? Buffer.Memory.valueOf(t[8].toUpperCase(Locale.ROOT)) : Buffer.Memory.DEVICE);
            if (b.bytes() != Long.parseLong(t[5])) {
              throw new IllegalArgumentException("bytes " + t[5] + " are not elements x " + b.type().bytes());
            }
            buffers.add(b);
            fills.add(t[7]);
          }
          case "kernel" -> {
            int count = Integer.parseInt(t[9]);
            List<Arg> args = new ArrayList<>();
            for (int a = 0; a < count; a++) {
              args.add(parseArg(t[10 + a]));
            }
            if (t.length != 10 + count) {
              throw new IllegalArgumentException(count + " args announced, " + (t.length - 10) + " given");
            }
            steps.add(new Step.Kernel(t[1], new Dim3(i(t[2]), i(t[3]), i(t[4])), new Dim3(i(t[5]), i(t[6]), i(t[7])),
                i(t[8]), args));
          }
          case "copy" -> steps.add(new Step.DeviceCopy(i(t[1]), i(t[2]), Long.parseLong(t[3])));
          case "memset32" -> steps.add(new Step.Memset32(i(t[1]), i(t[2]), Long.parseLong(t[3])));
          case "sgemm" -> steps.add(new Step.Sgemm(i(t[1]), i(t[2]), i(t[3]), i(t[4]), i(t[5]), i(t[6])));
          case "link" -> steps.add(new Step.Copy(i(t[1]), i(t[2]), Long.parseLong(t[3])));
          case "concurrent" -> concurrent = i(t[1]);
          case "end" -> {
            if (kernel == null) {
              throw new IllegalArgumentException("end without case");
            }
            cases.add(new Case(kernel, params, buffers, fills, steps, null));
            kernel = null;
          }
          default -> throw new IllegalArgumentException("unknown record '" + t[0] + "'");
        }
        if (t[0].equals("concurrent")) {
          concurrentFrom = steps.size();
        } else if (concurrent > 0 && steps.size() == concurrentFrom + concurrent) {
          List<Step> parts = new ArrayList<>(steps.subList(concurrentFrom, steps.size()));
          steps.subList(concurrentFrom, steps.size()).clear();
          steps.add(new Step.Concurrent(parts));
          concurrent = 0;
        }
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("plan: line " + (n + 1) + " (" + line + "): " + e.getMessage(), e);
      }
    }
    if (kernel != null) {
      throw new IllegalArgumentException("plan: case " + kernel + " has no end");
    }
    return cases;
  }

  private static int i(String token) {
    return Integer.parseInt(token);
  }

  private static String untoken(String token) {
    return token.equals("-") ? "" : token;
  }

  private static Arg parseArg(String token) {
    int colon = token.indexOf(':');
    String kind = token.substring(0, colon);
    String value = token.substring(colon + 1);
    return switch (kind) {
      case "buf" -> new Arg.Buf(Integer.parseInt(value));
      case "i32" -> new Arg.I32(Integer.parseInt(value));
      case "i64" -> new Arg.I64(Long.parseLong(value));
      case "f32" -> new Arg.F32(Float.intBitsToFloat(Integer.parseUnsignedInt(value.substring(2), 16)));
      case "f64" -> new Arg.F64(Double.longBitsToDouble(Long.parseUnsignedLong(value.substring(2), 16)));
      default -> throw new IllegalArgumentException("unknown argument kind '" + kind + "'");
    };
  }
}
