// Strided fp32 copy, the coalescing experiment itself: out[i] = in[i * stride] for i < n.
// 64-bit index math so n * stride past 2^31 stays right.
// Arguments must match io.busload.kernels.Catalog.STRIDE_COPY_FP32 (input, output, elements, stride).
//
// Each thread moves BUSLOAD_STRIDE_PER_THREAD elements, blockDim.x apart, loading all before storing any:
// every load instruction is still one warp reading 32 consecutive i (the access pattern under study is
// unchanged), but four independent loads are in flight per thread. Measured on an H200 (docs/results):
// one load per thread reached 65% of a device-to-device memcpy at stride 1, too few bytes in flight.
#define BUSLOAD_STRIDE_PER_THREAD 4

extern "C" __global__ void busload_stride_copy_f32(const float* __restrict__ in, float* __restrict__ out,
                                                   unsigned long long n, unsigned long long stride) {
  const unsigned long long base =
      (unsigned long long)blockIdx.x * blockDim.x * BUSLOAD_STRIDE_PER_THREAD + threadIdx.x;
  float v[BUSLOAD_STRIDE_PER_THREAD];
#pragma unroll
  for (int k = 0; k < BUSLOAD_STRIDE_PER_THREAD; k++) {
    const unsigned long long i = base + (unsigned long long)k * blockDim.x;
    if (i < n) v[k] = in[i * stride];
  }
#pragma unroll
  for (int k = 0; k < BUSLOAD_STRIDE_PER_THREAD; k++) {
    const unsigned long long i = base + (unsigned long long)k * blockDim.x;
    if (i < n) out[i] = v[k];
  }
}
