// Native cross-check of Busload's JCuda timing: loads the same fatbin, times the same entry points with the
// same recipe (warm-up; samples of a batch of launches between one event pair, batch >= 1 ms; median), and
// times a device-to-device memcpy of the same bytes. Prints CSV rows: kernel,param,median_s,bytes,GBps.
// Build: nvcc -O2 -o crosscheck crosscheck.cu -lcuda     Run: ./crosscheck path/to/busload.fatbin [elements]
#include <cuda.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    CUresult r_ = (call);                                                                \
    if (r_ != CUDA_SUCCESS) {                                                            \
      const char* name_ = nullptr;                                                       \
      cuGetErrorName(r_, &name_);                                                        \
      std::fprintf(stderr, "%s failed: %s (line %d)\n", #call, name_ ? name_ : "?", __LINE__); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

template <typename Launch>
static double median_seconds(Launch launch, CUevent start, CUevent stop) {
  for (int i = 0; i < 20; i++) launch();  // warm-up
  CHECK(cuCtxSynchronize());
  int batch = 1;
  for (;;) {  // calibrate: one sample lasts at least 1 ms
    CHECK(cuEventRecord(start, 0));
    for (int i = 0; i < batch; i++) launch();
    CHECK(cuEventRecord(stop, 0));
    CHECK(cuEventSynchronize(stop));
    float ms = 0;
    CHECK(cuEventElapsedTime(&ms, start, stop));
    if (ms >= 1.0f || batch >= (1 << 16)) break;
    batch *= 2;
  }
  std::vector<double> samples;
  for (int s = 0; s < 31; s++) {
    CHECK(cuEventRecord(start, 0));
    for (int i = 0; i < batch; i++) launch();
    CHECK(cuEventRecord(stop, 0));
    CHECK(cuEventSynchronize(stop));
    float ms = 0;
    CHECK(cuEventElapsedTime(&ms, start, stop));
    samples.push_back(ms / 1e3 / batch);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s busload.fatbin [elements]\n", argv[0]);
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (image.empty()) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  unsigned long long n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (1ull << 24);
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUmodule module;
  CHECK(cuModuleLoadData(&module, image.data()));
  CUfunction stride_copy;
  CHECK(cuModuleGetFunction(&stride_copy, module, "busload_stride_copy_f32"));
  CUevent start, stop;
  CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));

  const unsigned long long strides[] = {1, 2, 4, 8, 16, 32};
  CUdeviceptr in, out;
  CHECK(cuMemAlloc(&in, n * 32 * sizeof(float)));
  CHECK(cuMemAlloc(&out, n * sizeof(float)));
  CHECK(cuMemsetD32(in, 0x3f800000u, n * 32));  // 1.0f: timing only, correctness is Busload's check
  std::printf("kernel,param,median_s,bytes,GBps\n");
  const unsigned long long bytes = 2 * n * sizeof(float);
  double memcpy_s = median_seconds([&] { CHECK(cuMemcpyDtoDAsync(out, in, n * sizeof(float), 0)); }, start, stop);
  std::printf("memcpy-d2d,,%.9g,%llu,%.2f\n", memcpy_s, bytes, bytes / memcpy_s / 1e9);
  for (unsigned long long stride : strides) {
    unsigned int block = 256, per_thread = 4;  // Catalog.STRIDE_COPY_FP32's geometry
    unsigned int grid = (unsigned int)((n + block * per_thread - 1) / (block * per_thread));
    void* args[] = {&in, &out, &n, &stride};
    double s = median_seconds([&] { CHECK(cuLaunchKernel(stride_copy, grid, 1, 1, block, 1, 1, 0, 0, args, nullptr)); },
                              start, stop);
    std::printf("stride-copy-fp32,stride=%llu,%.9g,%llu,%.2f\n", stride, s, bytes, bytes / s / 1e9);
  }
  CHECK(cuMemFree(in));
  CHECK(cuMemFree(out));
  CHECK(cuModuleUnload(module));
  CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
