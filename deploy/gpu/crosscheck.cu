// Native cross-check of Busload's JCuda timing: reads the same fatbin and a plan that the agent
// resolved for this device (`./busload run --suite S --device cuda:0 --plan-out plan.txt`; format in
// agent/src/main/java/io/busload/agent/crosscheck/PlanFile.java), and for every case that runs:
// allocates its buffers, fills the inputs on the device (seeded random values of the type, iota, or a random
// permutation for index buffers: valid, not identical to Java's), poisons the outputs with 0xFF bytes, runs
// the steps once, warms up, then times samples of a batch of launches of all steps between one event pair, and
// prints the median. Warm-up, batch calibration, sample target and stopping rule are the agent's own, read from
// the plan's method line (io.busload.agent.measure.Sampling), so "within 1% of native" compares one
// method on both sides: warm-up launches_for(WARMUP_SAMPLES x target, probe, MIN_WARMUP_LAUNCHES), three rounds
// of calibration (a sample no larger than can be held), then samples until StoppingRule.stopReason says stop.
// Everything runs on the legacy default stream, as the agent's launches do; Sgemm goes through cuBLAS with
// the agent's row-major mapping and CUBLAS_DEFAULT_MATH.
//
// Output (stdout): CSV  kernel,params,median_s,launches_per_sample,samples,warmup_launches,stop
// With --once: each case's steps run exactly once (for a profiler such as ncu); prints one line per case.
//
// Build: nvcc -O2 -arch=native -o crosscheck crosscheck.cu -lcuda -lcublas
// Run:   ./crosscheck busload.fatbin plan.txt [--once]
//        ./crosscheck --interconnect busload.fatbin DEVICE BYTES...   (the links; see interconnect_main)
#include <climits>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

// The case being worked on, named in every failure message.
static std::string g_case = "(setup)";

static void fail(const char* call, const char* what, int line) {
  std::fprintf(stderr, "crosscheck: %s: %s failed: %s (line %d)\n", g_case.c_str(), call, what, line);
  std::exit(1);
}

static void check_cu(CUresult r, const char* call, int line) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown CUresult";
  fail(call, name, line);
}

static void check_rt(cudaError_t r, const char* call, int line) {
  if (r == cudaSuccess) return;
  fail(call, cudaGetErrorName(r), line);
}

static void check_blas(cublasStatus_t r, const char* call, int line) {
  if (r == CUBLAS_STATUS_SUCCESS) return;
  fail(call, cublasGetStatusName(r), line);
}

#define CU(call) check_cu((call), #call, __LINE__)
#define RT(call) check_rt((call), #call, __LINE__)
#define BLAS(call) check_blas((call), #call, __LINE__)

// ---- the plan ----------------------------------------------------------------------------------------------

struct BufferSpec {
  std::string name, type, role, fill;
  unsigned long long elements = 0, bytes = 0;
};

struct ArgSpec {
  std::string kind;  // buf, i32, i64, f32, f64
  long long integer = 0;
  unsigned long long bits = 0;
};

struct StepSpec {
  std::string op;  // kernel, copy, memset32, sgemm
  std::string entry;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, shared = 0;
  std::vector<ArgSpec> args;
  long long n[6] = {0, 0, 0, 0, 0, 0};  // copy: dst src bytes; memset32: buffer value count; sgemm: m n k a b c
};

// How the agent samples (the plan's method line; Measurement, StoppingRule).
struct Method {
  bool present = false;
  int warmup_samples = 0, min_warmup_launches = 0, max_launches = 0, min_samples = 0, window = 0, max_samples = 0;
  double sample_target_s = 0, max_spread = 0, time_cap_s = 0;
};

struct CaseSpec {
  std::string kernel, params;
  std::vector<BufferSpec> buffers;
  std::vector<StepSpec> steps;
};

static void bad_plan(int line, const std::string& text, const char* why) {
  std::fprintf(stderr, "crosscheck: plan line %d (%s): %s\n", line, text.c_str(), why);
  std::exit(2);
}

static std::vector<CaseSpec> read_plan(const char* path, Method& method) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "crosscheck: cannot read plan %s\n", path);
    std::exit(2);
  }
  std::vector<CaseSpec> cases;
  std::string text;
  int line = 0;
  bool open = false;
  CaseSpec current;
  while (std::getline(in, text)) {
    line++;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty()) continue;
    std::istringstream t(text);
    std::string record;
    t >> record;
    if (line == 1) {
      int version = 0;
      t >> version;
      if (record != "busload-plan" || version != 2) bad_plan(line, text, "not a busload-plan 2 file");
      continue;
    }
    if (record == "method") {
      Method& m = method;
      t >> m.warmup_samples >> m.min_warmup_launches >> m.sample_target_s >> m.max_launches >> m.min_samples >>
          m.window >> m.max_spread >> m.time_cap_s >> m.max_samples;
      if (t.fail()) bad_plan(line, text, "method needs 9 numbers");
      if (m.min_samples < 1 || m.window < 2 || m.window > std::max(m.min_samples, 2) || m.max_samples < m.min_samples)
        bad_plan(line, text, "stopping rule needs 1 <= window <= min samples <= max samples");
      m.present = true;
      continue;
    }
    if (record == "skip") continue;  // the agent reports these as skipped; nothing to time
    if (record == "case") {
      current = CaseSpec();
      t >> current.kernel >> current.params;
      if (current.params == "-") current.params.clear();
      open = true;
    } else if (record == "buffer") {
      BufferSpec b;
      size_t index = 0;
      t >> index >> b.name >> b.type >> b.elements >> b.bytes >> b.role >> b.fill;
      if (!open || index != current.buffers.size()) bad_plan(line, text, "buffer out of order or outside a case");
      current.buffers.push_back(b);
    } else if (record == "kernel") {
      StepSpec s;
      s.op = record;
      size_t count = 0;
      t >> s.entry >> s.grid[0] >> s.grid[1] >> s.grid[2] >> s.block[0] >> s.block[1] >> s.block[2] >> s.shared >>
          count;
      for (size_t i = 0; i < count; i++) {
        std::string token;
        t >> token;
        size_t colon = token.find(':');
        if (colon == std::string::npos) bad_plan(line, text, "argument without kind:value");
        ArgSpec a;
        a.kind = token.substr(0, colon);
        std::string value = token.substr(colon + 1);
        if (a.kind == "f32" || a.kind == "f64") {
          a.bits = std::strtoull(value.c_str(), nullptr, 16);
        } else if (a.kind == "buf" || a.kind == "i32" || a.kind == "i64") {
          a.integer = std::strtoll(value.c_str(), nullptr, 10);
        } else {
          bad_plan(line, text, "unknown argument kind");
        }
        s.args.push_back(a);
      }
      if (!open) bad_plan(line, text, "step outside a case");
      current.steps.push_back(s);
    } else if (record == "copy" || record == "memset32" || record == "sgemm") {
      StepSpec s;
      s.op = record;
      int count = record == "sgemm" ? 6 : 3;
      for (int i = 0; i < count; i++) t >> s.n[i];
      if (!open) bad_plan(line, text, "step outside a case");
      current.steps.push_back(s);
    } else if (record == "end") {
      if (!open) bad_plan(line, text, "end without case");
      cases.push_back(current);
      open = false;
    } else {
      bad_plan(line, text, "unknown record");
    }
    if (t.fail()) bad_plan(line, text, "missing or malformed fields");
  }
  if (open) bad_plan(line, text, "last case has no end");
  return cases;
}

// ---- filling -----------------------------------------------------------------------------------------------

// SplitMix64 of (seed, index), as io.busload.kernels.RandomFill: values in the same ranges as the agent's
// inputs (floats in [1, 2), int8 1..127, int32 1..2^30), never zero, NaN or the 0xFF poison.
__device__ unsigned long long mix(unsigned long long seed, unsigned long long index) {
  unsigned long long z = seed + index * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

enum FillKind { FILL_U8 = 0, FILL_F16 = 1, FILL_F32 = 2, FILL_F64 = 3, FILL_I32 = 4, FILL_IOTA32 = 5 };

// Not named busload_*: ncu's --kernel-name regex:^busload_ must see only the plan's entry points.
__global__ void native_fill(void* data, unsigned long long units, int kind, unsigned long long seed) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < units;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned long long r = mix(seed, i);
    switch (kind) {
      case FILL_U8: static_cast<unsigned char*>(data)[i] = (unsigned char)(1 + r % 127); break;
      case FILL_F16: static_cast<unsigned short*>(data)[i] = (unsigned short)(0x3C00u | (r & 0x3FFu)); break;
      case FILL_F32: static_cast<unsigned int*>(data)[i] = 0x3F800000u | (unsigned int)(r >> 41); break;
      case FILL_F64: static_cast<unsigned long long*>(data)[i] = 0x3FF0000000000000ull | (r >> 12); break;
      case FILL_I32: static_cast<int*>(data)[i] = 1 + (int)(r >> 34); break;
      case FILL_IOTA32: static_cast<int*>(data)[i] = (int)i; break;
    }
  }
}

static void device_fill(CUdeviceptr p, unsigned long long units, int kind, unsigned long long seed) {
  native_fill<<<1024, 256>>>(reinterpret_cast<void*>(p), units, kind, seed);
  RT(cudaGetLastError());
}

static void fill_buffer(CUdeviceptr p, const BufferSpec& b, unsigned long long seed) {
  if (b.role == "output") {
    CU(cuMemsetD8(p, 0xFF, b.bytes));  // the agent's poison
    return;
  }
  if (b.role != "input" && b.role != "inout") return;  // scratch: left as allocated, as the agent does
  if (b.fill == "iota" || b.fill == "permutation") {
    if (b.type != "int32") {
      std::fprintf(stderr, "crosscheck: %s: %s fill of %s buffer %s: only int32 indices are known\n", g_case.c_str(),
                   b.fill.c_str(), b.type.c_str(), b.name.c_str());
      std::exit(2);
    }
    if (b.fill == "iota") {
      device_fill(p, b.elements, FILL_IOTA32, 0);
      return;
    }
    std::vector<int32_t> host(b.elements);
    std::iota(host.begin(), host.end(), 0);
    std::mt19937_64 random(seed);
    for (unsigned long long i = b.elements - 1; i > 0; i--) {  // Fisher-Yates
      unsigned long long j = std::uniform_int_distribution<unsigned long long>(0, i)(random);
      std::swap(host[i], host[j]);
    }
    CU(cuMemcpyHtoD(p, host.data(), b.bytes));
    return;
  }
  if (b.fill != "random") {
    std::fprintf(stderr, "crosscheck: %s: unknown fill '%s' of buffer %s\n", g_case.c_str(), b.fill.c_str(),
                 b.name.c_str());
    std::exit(2);
  }
  if (b.type == "int8") device_fill(p, b.bytes, FILL_U8, seed);
  else if (b.type == "fp16") device_fill(p, b.bytes / 2, FILL_F16, seed);
  else if (b.type == "fp32" || b.type == "float2" || b.type == "float4") device_fill(p, b.bytes / 4, FILL_F32, seed);
  else if (b.type == "fp64") device_fill(p, b.bytes / 8, FILL_F64, seed);
  else if (b.type == "int32") device_fill(p, b.bytes / 4, FILL_I32, seed);
  else {
    std::fprintf(stderr, "crosscheck: %s: unknown element type '%s'\n", g_case.c_str(), b.type.c_str());
    std::exit(2);
  }
}

// ---- running -----------------------------------------------------------------------------------------------

struct Bound {  // a step bound to this case's pointers, so a timed batch only launches
  const StepSpec* spec;
  CUfunction function = nullptr;
  std::vector<unsigned long long> storage;  // one 8-byte slot per argument (every kind fits)
  std::vector<void*> params;
};

// As the agent (Fatbin.MAX_HELD_LAUNCHES, BLOCK_TIMEOUT_NS; kernels/src/main/cuda/timing.cu): a sample of up to
// this many steps is queued behind busload_block_until_released, which the host releases after queueing the stop
// event, so neither side's enqueue time is inside its samples. BUSLOAD_NATIVE_NO_HOLD=1 times without it.
static const long MAX_HELD_LAUNCHES = 512;
static const unsigned long long BLOCK_TIMEOUT_NS = 100000000ull;

struct Runner {
  CUmodule module;
  cublasHandle_t blas = nullptr;
  std::map<std::string, CUfunction> functions;
  CUevent start, stop;
  bool hold = true;  // off for --once (ncu would profile the blocking kernel) and BUSLOAD_NATIVE_NO_HOLD
  volatile int* flags = nullptr;  // [0] release, [1] timed out: host memory the GPU reads
  CUdeviceptr flags_on_device = 0;
  long held_timeouts = 0;

  CUfunction function(const std::string& entry) {
    auto found = functions.find(entry);
    if (found != functions.end()) return found->second;
    CUfunction f;
    CU(cuModuleGetFunction(&f, module, entry.c_str()));
    functions[entry] = f;
    return f;
  }

  cublasHandle_t cublas() {
    if (blas == nullptr) {
      BLAS(cublasCreate(&blas));
      BLAS(cublasSetStream(blas, 0));  // the legacy default stream, where the events are recorded
      BLAS(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));  // fp32 stays fp32 (no TF32), as the agent
    }
    return blas;
  }

  void launch(Bound& b, const std::vector<CUdeviceptr>& ptrs) {
    const StepSpec& s = *b.spec;
    if (s.op == "kernel") {
      CU(cuLaunchKernel(b.function, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2], s.shared, 0,
                        b.params.data(), nullptr));
    } else if (s.op == "copy") {
      CU(cuMemcpyDtoDAsync(ptrs[s.n[0]], ptrs[s.n[1]], (size_t)s.n[2], 0));
    } else if (s.op == "memset32") {
      CU(cuMemsetD32Async(ptrs[s.n[0]], (unsigned int)s.n[1], (size_t)s.n[2], 0));
    } else {  // sgemm: row-major C(m x n) = A(m x k) B(k x n) is column-major C^T = B^T A^T
      const float alpha = 1.0f, beta = 0.0f;
      int m = (int)s.n[0], n = (int)s.n[1], k = (int)s.n[2];
      BLAS(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha,
                       reinterpret_cast<const float*>(ptrs[s.n[4]]), n, reinterpret_cast<const float*>(ptrs[s.n[3]]),
                       k, &beta, reinterpret_cast<float*>(ptrs[s.n[5]]), n));
    }
  }

  double time_batch(std::vector<Bound>& steps, const std::vector<CUdeviceptr>& ptrs, int launches) {
    bool held = hold && (long)launches * (long)steps.size() <= MAX_HELD_LAUNCHES;
    if (held) {
      if (flags == nullptr) {
        void* host = nullptr;
        CU(cuMemHostAlloc(&host, 2 * sizeof(int), CU_MEMHOSTALLOC_DEVICEMAP));
        flags = static_cast<volatile int*>(host);
        CU(cuMemHostGetDevicePointer(&flags_on_device, host, 0));
      }
      flags[0] = 0;
      flags[1] = 0;
      CUdeviceptr release = flags_on_device, timed_out = flags_on_device + sizeof(int);
      unsigned long long timeout = BLOCK_TIMEOUT_NS;
      void* args[] = {&release, &timed_out, &timeout};
      CU(cuLaunchKernel(function("busload_block_until_released"), 1, 1, 1, 1, 1, 1, 0, 0, args, nullptr));
    }
    CU(cuEventRecord(start, 0));
    for (int i = 0; i < launches; i++)
      for (Bound& b : steps) launch(b, ptrs);
    CU(cuEventRecord(stop, 0));
    if (held) flags[0] = 1;
    CU(cuEventSynchronize(stop));
    if (held && flags[1] != 0) {  // the host was too slow: time the batch again without the hold
      if (held_timeouts++ == 0)
        std::fprintf(stderr, "crosscheck: %s: the host took over 100 ms to queue %d launches; timed without hold\n",
                     g_case.c_str(), launches);
      bool was = hold;
      hold = false;
      double t = time_batch(steps, ptrs, launches);
      hold = was;
      return t;
    }
    float ms = 0;
    CU(cuEventElapsedTime(&ms, start, stop));
    return ms / 1e3;
  }
};

static int launches_for(const Method& m, double target, double per_launch, int minimum) {
  if (!(per_launch > 0)) return std::max(minimum, 1);
  double n = std::ceil(target / per_launch);
  return (int)std::max((double)minimum, std::min((double)m.max_launches, n));
}

static double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// (max - min) / median of samples[from, end), as StoppingRule.spread.
static double spread_of(const std::vector<double>& samples, size_t from) {
  std::vector<double> last(samples.begin() + from, samples.end());
  auto [lo, hi] = std::minmax_element(last.begin(), last.end());
  return (*hi - *lo) / median_of(last);
}

// StoppingRule.stopReason: "" to go on, else why sampling stops (in the same words).
static std::string stop_reason(const Method& m, const std::vector<double>& samples, double elapsed_s) {
  if (samples.size() >= (size_t)m.max_samples) return "sample cap";
  if (samples.size() >= (size_t)m.min_samples && spread_of(samples, samples.size() - m.window) < m.max_spread)
    return "spread";
  if (elapsed_s >= m.time_cap_s && samples.size() >= (size_t)std::min(m.min_samples, 3)) return "time cap";
  return "";
}

// One case as Measurement takes it, on either path: probe, warm-up, up to three calibration rounds (a sample no
// larger than `held` launches, as the agent's Workload.heldLaunchLimit), then samples until stop_reason says stop.
struct Measured {
  double median_s;
  int launches;
  size_t samples;
  long warmup_launches;  // every launch before the first sample, the checked one included (as the agent counts)
  std::string stop;
};

template <class TimeBatch>
static Measured measure_case(const Method& m, int held, TimeBatch time) {
  const double target = m.sample_target_s;
  double probe = time(1);
  int warmup = launches_for(m, m.warmup_samples * target, probe, m.min_warmup_launches);
  double warm = time(warmup);
  int launches = std::min(held, launches_for(m, target, warm / warmup, 1));
  long calibration = 0;
  for (int round = 0; round < 3; round++) {
    double t = time(launches);
    calibration += launches;
    if (t >= target || launches >= held) break;
    launches = std::min(held, launches_for(m, target, t / launches, launches));
  }
  std::vector<double> samples;
  std::string why;
  auto began = std::chrono::steady_clock::now();
  do {
    samples.push_back(time(launches) / launches);
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    why = stop_reason(m, samples, elapsed);
  } while (why.empty());
  return {median_of(samples), launches, samples.size(), 2 + warmup + calibration, why};
}

// ---- interconnect -------------------------------------------------------------------------------
// crosscheck --interconnect busload.fatbin plan.txt DEVICE BYTES...: the host links and the peer pairs of the agent's
// interconnect suite (io.busload.kernels.families.Interconnect), timed natively with the same recipe as the plan
// path: the method line of plan.txt (written by ./busload run --plan-out on this GPU) sets warm-up, sample target
// and stopping rule; its cases are not used (these buffers live in host and peer memory). Names and
// params are the agent's, so Comparison joins the two CSVs. Copy engines: cuMemcpy*Async, both directions on two
// non-blocking streams forked from and joined to the legacy stream; SM: the fatbin's busload_interconnect_copy*_v4
// on mapped pinned memory or peer memory. Every copy is checked with memcmp after it lands. Pinned memory that
// cannot be allocated is reported on stderr and its cases skipped; pageable cases still run. Pairs: every other
// GPU, at 256 MiB, where cuDeviceCanAccessPeer says yes; "no peer access" on stderr otherwise.

struct LinkBuffer {
  std::string memory;   // device, peer, pinned, mapped, pageable
  void* host = nullptr;  // host memory (pinned, mapped, pageable)
  CUdeviceptr dev = 0;   // device or peer memory, or the mapped address
  CUcontext owner = nullptr;
};

static bool link_alloc(LinkBuffer& b, const std::string& memory, size_t bytes, CUcontext here, CUcontext peer) {
  b.memory = memory;
  if (memory == "device" || memory == "peer") {
    b.owner = memory == "peer" ? peer : here;
    CU(cuCtxSetCurrent(b.owner));
    CU(cuMemAlloc(&b.dev, bytes));
    CU(cuCtxSetCurrent(here));
  } else if (memory == "pageable") {
    b.host = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (b.host == nullptr) return false;
  } else {
    CUresult r = cuMemHostAlloc(&b.host, bytes, memory == "mapped" ? CU_MEMHOSTALLOC_DEVICEMAP : 0);
    if (r != CUDA_SUCCESS) {
      const char* name = nullptr;
      cuGetErrorName(r, &name);
      std::fprintf(stderr, "crosscheck: %s: host memory cannot be pinned: cuMemHostAlloc(%zu) failed with %s\n",
                   g_case.c_str(), bytes, name ? name : "?");
      b.host = nullptr;
      return false;
    }
    if (memory == "mapped") CU(cuMemHostGetDevicePointer(&b.dev, b.host, 0));
  }
  return true;
}

static void link_free(LinkBuffer& b, CUcontext here) {
  if (b.memory == "device" || b.memory == "peer") {
    CU(cuCtxSetCurrent(b.owner));
    CU(cuMemFree(b.dev));
    CU(cuCtxSetCurrent(here));
  } else if (b.memory == "pageable") {
    std::free(b.host);
  } else if (b.host != nullptr) {
    CU(cuMemFreeHost(b.host));
  }
}

// Host copies of a buffer's bytes in and out (the peer's through its context), for filling and checking.
static void link_put(LinkBuffer& b, const std::vector<unsigned char>& bytes, CUcontext here) {
  if (b.host != nullptr) {
    std::memcpy(b.host, bytes.data(), bytes.size());
    return;
  }
  CU(cuCtxSetCurrent(b.owner));
  CU(cuMemcpyHtoD(b.dev, bytes.data(), bytes.size()));
  CU(cuCtxSetCurrent(here));
}

static std::vector<unsigned char> link_get(LinkBuffer& b, size_t size, CUcontext here) {
  std::vector<unsigned char> bytes(size);
  if (b.host != nullptr) {
    std::memcpy(bytes.data(), b.host, size);
    return bytes;
  }
  CU(cuCtxSetCurrent(b.owner));
  CU(cuMemcpyDtoH(bytes.data(), b.dev, size));
  CU(cuCtxSetCurrent(here));
  return bytes;
}

struct LinkCase {
  std::string kernel, dir, memory;  // dir: h2d, d2h, bidir, write
  bool sm = false;
};

static int interconnect_main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s --interconnect busload.fatbin plan.txt DEVICE BYTES...\n", argv[0]);
    return 2;
  }
  Method m;
  read_plan(argv[3], m);
  if (!m.present) {
    std::fprintf(stderr, "crosscheck: %s has no method line; write it with ./busload run --plan-out\n", argv[3]);
    return 2;
  }
  std::ifstream file(argv[2], std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (image.empty()) {
    std::fprintf(stderr, "crosscheck: cannot read fatbin %s\n", argv[2]);
    return 2;
  }
  CU(cuInit(0));
  int count = 0;
  CU(cuDeviceGetCount(&count));
  int ordinal = std::atoi(argv[4]);
  if (ordinal < 0 || ordinal >= count) {
    std::fprintf(stderr, "crosscheck: device: cuda:%d does not exist; this host has cuda:0..cuda:%d\n", ordinal,
                 count - 1);
    return 2;
  }
  std::vector<size_t> sizes;
  for (int i = 5; i < argc; i++) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  CUdevice dev;
  CU(cuDeviceGet(&dev, ordinal));
  CUcontext here;
  CU(cuDevicePrimaryCtxRetain(&here, dev));
  CU(cuCtxSetCurrent(here));
  CUmodule module;
  CU(cuModuleLoadData(&module, image.data()));
  CUfunction one, two, block;
  CU(cuModuleGetFunction(&block, module, "busload_block_until_released"));
  void* flag_memory = nullptr;
  CU(cuMemHostAlloc(&flag_memory, 2 * sizeof(int), CU_MEMHOSTALLOC_DEVICEMAP));
  volatile int* flags = static_cast<volatile int*>(flag_memory);
  CUdeviceptr flags_on_device = 0;
  CU(cuMemHostGetDevicePointer(&flags_on_device, flag_memory, 0));
  CU(cuModuleGetFunction(&one, module, "busload_interconnect_copy_v4"));
  CU(cuModuleGetFunction(&two, module, "busload_interconnect_copy2_v4"));
  CUevent start, stop, fork, join[2];
  CU(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
  CUstream streams[2];
  for (int i = 0; i < 2; i++) {
    CU(cuEventCreate(&join[i], CU_EVENT_DISABLE_TIMING));
    CU(cuStreamCreate(&streams[i], CU_STREAM_NON_BLOCKING));
  }
  const std::vector<LinkCase> host_cases = {
      {"h2d-ce-pinned", "h2d", "pinned"},     {"d2h-ce-pinned", "d2h", "pinned"},
      {"bidir-ce-pinned", "bidir", "pinned"}, {"h2d-ce-pageable", "h2d", "pageable"},
      {"d2h-ce-pageable", "d2h", "pageable"}, {"bidir-ce-pageable", "bidir", "pageable"},
      {"h2d-sm-mapped", "h2d", "mapped", true}, {"d2h-sm-mapped", "d2h", "mapped", true},
      {"bidir-sm-mapped", "bidir", "mapped", true}};
  const std::vector<LinkCase> peer_cases = {{"p2p-ce-write", "write", "peer"}, {"p2p-ce-bidir", "bidir", "peer"},
                                            {"p2p-sm-write", "write", "peer", true},
                                            {"p2p-sm-bidir", "bidir", "peer", true}};
  struct Run {
    LinkCase c;
    size_t bytes;
    int peer;
  };
  std::vector<Run> runs;
  for (const LinkCase& c : host_cases)
    for (size_t bytes : sizes) runs.push_back({c, bytes, -1});
  for (int p = 0; p < count; p++) {
    if (p == ordinal) continue;
    int there = 0, back = 0;
    CUdevice other;
    CU(cuDeviceGet(&other, p));
    CU(cuDeviceCanAccessPeer(&there, dev, other));
    CU(cuDeviceCanAccessPeer(&back, other, dev));
    if (!there || !back) {
      std::fprintf(stderr, "crosscheck: cuda:%d -> cuda:%d: no peer access\n", ordinal, p);
      continue;
    }
    for (const LinkCase& c : peer_cases) runs.push_back({c, (size_t)256 << 20, p});
  }
  if (count < 2) std::fprintf(stderr, "crosscheck: no GPU pair on this host: cuda:%d is its only GPU\n", ordinal);

  std::printf("kernel,params,median_s,launches_per_sample,samples\n");
  std::mt19937_64 random(0x5EEDB05ull);
  for (const Run& run : runs) {
    const LinkCase& c = run.c;
    size_t bytes = run.bytes;
    std::string params = "bytes=" + std::to_string(bytes) + (run.peer >= 0 ? ";peer=" + std::to_string(run.peer) : "") +
                         ";size=" + std::to_string(bytes);
    g_case = c.kernel + " " + params;
    CUcontext peer = nullptr;
    CUdevice peer_dev = 0;
    if (run.peer >= 0) {
      CU(cuDeviceGet(&peer_dev, run.peer));
      CU(cuDevicePrimaryCtxRetain(&peer, peer_dev));
      CUresult r = cuCtxEnablePeerAccess(peer, 0);
      if (r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) CU(r);
      CU(cuCtxSetCurrent(peer));
      r = cuCtxEnablePeerAccess(here, 0);
      if (r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) CU(r);
      CU(cuCtxSetCurrent(here));
    }
    // src0 -> dst0, and for both directions src1 -> dst1, as Interconnect.Case lays them out.
    bool both = c.dir == "bidir";
    std::string far = c.memory, local = "device";
    bool far_first = c.dir == "h2d" || (both && c.memory != "peer");
    std::string a = far_first ? far : local, b = far_first ? local : far;
    std::vector<std::string> memories = {a, b};
    if (both) {
      memories.push_back(b);
      memories.push_back(a);
    }
    std::vector<LinkBuffer> bufs(memories.size());
    bool ok = true;
    for (size_t i = 0; i < memories.size() && ok; i++) ok = link_alloc(bufs[i], memories[i], bytes, here, peer);
    if (ok) {
      for (size_t i = 0; i < bufs.size(); i++) {
        std::vector<unsigned char> fill(bytes);
        if (i % 2 == 0) {
          for (size_t k = 0; k < bytes; k += 8) {
            uint64_t v = random();
            std::memcpy(&fill[k], &v, std::min<size_t>(8, bytes - k));
          }
        } else {
          std::fill(fill.begin(), fill.end(), 0xFF);  // poison
        }
        link_put(bufs[i], fill, here);
      }
      auto copy = [&](LinkBuffer& dst, LinkBuffer& src, CUstream s) {
        if (src.memory == "pinned" || src.memory == "pageable") {
          CU(cuMemcpyHtoDAsync(dst.dev, src.host, bytes, s));
        } else if (dst.memory == "pinned" || dst.memory == "pageable") {
          CU(cuMemcpyDtoHAsync(dst.host, src.dev, bytes, s));
        } else {
          CU(cuMemcpyPeerAsync(dst.dev, dst.owner, src.dev, src.owner, bytes, s));
        }
      };
      unsigned long long words = bytes / 16;
      unsigned blocks = (unsigned)std::min<unsigned long long>(1024, (words + 1023) / 1024);
      auto launch_all = [&](int launches) {
        for (int l = 0; l < launches; l++) {
          if (c.sm && both) {
            void* args[] = {&bufs[1].dev, &bufs[0].dev, &bufs[3].dev, &bufs[2].dev, &words};
            CU(cuLaunchKernel(two, 2 * blocks, 1, 1, 256, 1, 1, 0, 0, args, nullptr));
          } else if (c.sm) {
            void* args[] = {&bufs[1].dev, &bufs[0].dev, &words};
            CU(cuLaunchKernel(one, blocks, 1, 1, 256, 1, 1, 0, 0, args, nullptr));
          } else if (both) {
            CU(cuEventRecord(fork, 0));
            for (int k = 0; k < 2; k++) {
              CU(cuStreamWaitEvent(streams[k], fork, 0));
              copy(bufs[2 * k + 1], bufs[2 * k], streams[k]);
              CU(cuEventRecord(join[k], streams[k]));
            }
            for (int k = 0; k < 2; k++) CU(cuStreamWaitEvent(0, join[k], 0));
          } else {
            copy(bufs[1], bufs[0], 0);
          }
        }
      };
      // Held behind the blocking kernel as the agent holds it (CudaWorkload): not with pageable memory, whose
      // device-to-host copies return only when done, and not past MAX_HELD_LAUNCHES.
      bool holdable = c.memory != "pageable" && std::getenv("BUSLOAD_NATIVE_NO_HOLD") == nullptr;
      auto time = [&](int launches) {
        bool held = holdable && launches <= MAX_HELD_LAUNCHES;
        if (held) {
          flags[0] = 0;
          flags[1] = 0;
          CUdeviceptr release = flags_on_device, timed_out = flags_on_device + sizeof(int);
          unsigned long long timeout = BLOCK_TIMEOUT_NS;
          void* args[] = {&release, &timed_out, &timeout};
          CU(cuLaunchKernel(block, 1, 1, 1, 1, 1, 1, 0, 0, args, nullptr));
        }
        CU(cuEventRecord(start, 0));
        launch_all(launches);
        CU(cuEventRecord(stop, 0));
        if (held) flags[0] = 1;
        CU(cuEventSynchronize(stop));
        if (held && flags[1] != 0)
          std::fprintf(stderr, "crosscheck: %s: the hold timed out; this sample includes the host's enqueue time\n",
                       g_case.c_str());
        float ms = 0;
        CU(cuEventElapsedTime(&ms, start, stop));
        return ms / 1e3;
      };
      time(1);  // the launch that is checked
      CU(cuCtxSynchronize());
      for (size_t i = 1; i < bufs.size(); i += 2) {
        std::vector<unsigned char> src = link_get(bufs[i - 1], bytes, here), dst = link_get(bufs[i], bytes, here);
        if (src != dst) {
          std::fprintf(stderr, "crosscheck: %s: copy %zu did not land (first byte differs at %zu)\n", g_case.c_str(),
                       i / 2, (size_t)(std::mismatch(src.begin(), src.end(), dst.begin()).first - src.begin()));
          ok = false;
        }
      }
      if (ok) {
        // As the agent: pageable copies are never held, held ones at most MAX_HELD_LAUNCHES a sample.
        Measured r = measure_case(m, holdable ? (int)MAX_HELD_LAUNCHES : INT_MAX, time);
        std::printf("%s,%s,%.9g,%d,%zu\n", c.kernel.c_str(), params.c_str(), r.median_s, r.launches, r.samples);
        std::fflush(stdout);
      }
    }
    CU(cuCtxSynchronize());
    for (LinkBuffer& buf : bufs)
      if (!buf.memory.empty()) link_free(buf, here);
    if (peer != nullptr) CU(cuDevicePrimaryCtxRelease(peer_dev));
  }
  g_case = "(teardown)";
  CU(cuMemFreeHost(flag_memory));
  CU(cuModuleUnload(module));
  CU(cuDevicePrimaryCtxRelease(dev));
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--interconnect") == 0) return interconnect_main(argc, argv);
  if (argc < 3 || (argc > 3 && std::strcmp(argv[3], "--once") != 0)) {
    std::fprintf(stderr, "usage: %s busload.fatbin plan.txt [--once]\n", argv[0]);
    return 2;
  }
  bool once = argc > 3;
  std::ifstream file(argv[1], std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (image.empty()) {
    std::fprintf(stderr, "crosscheck: cannot read fatbin %s\n", argv[1]);
    return 2;
  }
  Method method;
  std::vector<CaseSpec> cases = read_plan(argv[2], method);
  if (!once && !method.present) {
    std::fprintf(stderr, "crosscheck: %s has no method line; write it with ./busload run --plan-out\n", argv[2]);
    return 2;
  }

  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));  // the primary context: the runtime API and cuBLAS use it too
  CU(cuCtxSetCurrent(ctx));
  Runner runner;
  CU(cuModuleLoadData(&runner.module, image.data()));
  CU(cuEventCreate(&runner.start, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&runner.stop, CU_EVENT_DEFAULT));
  runner.hold = !once && std::getenv("BUSLOAD_NATIVE_NO_HOLD") == nullptr;

  if (!once) std::printf("kernel,params,median_s,launches_per_sample,samples,warmup_launches,stop\n");
  unsigned long long seed = 0x5EEDB05ull;
  for (const CaseSpec& c : cases) {
    g_case = c.kernel + " " + c.params;
    std::vector<CUdeviceptr> ptrs;
    for (const BufferSpec& b : c.buffers) {
      CUdeviceptr p;
      CU(cuMemAlloc(&p, b.bytes));
      ptrs.push_back(p);
    }
    for (size_t i = 0; i < c.buffers.size(); i++) fill_buffer(ptrs[i], c.buffers[i], seed + i);
    std::vector<Bound> steps(c.steps.size());
    for (size_t i = 0; i < c.steps.size(); i++) {
      Bound& b = steps[i];
      b.spec = &c.steps[i];
      if (b.spec->op == "sgemm") runner.cublas();
      if (b.spec->op != "kernel") continue;
      b.function = runner.function(b.spec->entry);
      b.storage.resize(b.spec->args.size());
      for (size_t a = 0; a < b.spec->args.size(); a++) {
        const ArgSpec& arg = b.spec->args[a];
        void* slot = &b.storage[a];
        if (arg.kind == "buf") {
          CUdeviceptr p = ptrs.at((size_t)arg.integer);
          std::memcpy(slot, &p, sizeof p);
        } else if (arg.kind == "i32") {
          int32_t v = (int32_t)arg.integer;
          std::memcpy(slot, &v, sizeof v);
        } else if (arg.kind == "i64") {
          int64_t v = arg.integer;
          std::memcpy(slot, &v, sizeof v);
        } else if (arg.kind == "f32") {
          uint32_t v = (uint32_t)arg.bits;
          std::memcpy(slot, &v, sizeof v);
        } else {
          uint64_t v = arg.bits;
          std::memcpy(slot, &v, sizeof v);
        }
        b.params.push_back(slot);
      }
    }
    CU(cuCtxSynchronize());  // fills done
    double first = runner.time_batch(steps, ptrs, 1);  // the run the agent checks
    if (once) {
      std::printf("once,%s,%s,%.9g\n", c.kernel.c_str(), c.params.c_str(), first);
    } else {
      // Measurement's recipe, step for step (measure_case); held as the agent holds (Workload.heldLaunchLimit).
      int held = runner.hold ? (int)std::max(1L, MAX_HELD_LAUNCHES / (long)steps.size()) : INT_MAX;
      Measured r = measure_case(method, held, [&](int launches) { return runner.time_batch(steps, ptrs, launches); });
      std::printf("%s,%s,%.9g,%d,%zu,%ld,%s\n", c.kernel.c_str(), c.params.c_str(), r.median_s, r.launches, r.samples,
                  r.warmup_launches, r.stop.c_str());
    }
    std::fflush(stdout);
    CU(cuCtxSynchronize());
    for (CUdeviceptr p : ptrs) CU(cuMemFree(p));
  }
  g_case = "(teardown)";
  if (runner.blas != nullptr) BLAS(cublasDestroy(runner.blas));
  CU(cuEventDestroy(runner.start));
  CU(cuEventDestroy(runner.stop));
  CU(cuModuleUnload(runner.module));
  CU(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
