// Indexed fp32 copies (family "gather"): gather out[i] = in[idx[i]], scatter out[idx[i]] = in[i],
// for i < n, where idx is a permutation of 0..n-1, either sorted (the identity: the indirection's cost with
// perfect coalescing) or random (one sector per lane on the indexed side).
// Arguments of both entry points, in order (io.busload.kernels.families.Gather):
//   const float* in, const int* idx, float* out, unsigned long long n
// Launch, both: block 256, grid ceil(n / 1024), no shared memory. Like stride.cu, each thread handles
// BUSLOAD_GATHER_PER_THREAD elements blockDim.x apart and issues all its loads before any store, so every
// warp instruction still covers 32 consecutive i while four requests per thread are in flight.
#define BUSLOAD_GATHER_PER_THREAD 4

extern "C" __global__ void busload_gather_gather_f32(const float* __restrict__ in, const int* __restrict__ idx,
                                              float* __restrict__ out, unsigned long long n) {
  const unsigned long long base =
      (unsigned long long)blockIdx.x * blockDim.x * BUSLOAD_GATHER_PER_THREAD + threadIdx.x;
  int j[BUSLOAD_GATHER_PER_THREAD];
  float v[BUSLOAD_GATHER_PER_THREAD];
#pragma unroll
  for (int k = 0; k < BUSLOAD_GATHER_PER_THREAD; k++) {
    const unsigned long long i = base + (unsigned long long)k * blockDim.x;
    if (i < n) j[k] = idx[i];
  }
#pragma unroll
  for (int k = 0; k < BUSLOAD_GATHER_PER_THREAD; k++) {
    const unsigned long long i = base + (unsigned long long)k * blockDim.x;
    if (i < n) v[k] = in[(unsigned int)j[k]];
  }
#pragma unroll
  for (int k = 0; k < BUSLOAD_GATHER_PER_THREAD; k++) {
    const unsigned long long i = base + (unsigned long long)k * blockDim.x;
    if (i < n) out[i] = v[k];
  }
}

extern "C" __global__ void busload_gather_scatter_f32(const float* __restrict__ in, const int* __restrict__ idx,
                                               float* __restrict__ out, unsigned long long n) {
  const unsigned long long base =
      (unsigned long long)blockIdx.x * blockDim.x * BUSLOAD_GATHER_PER_THREAD + threadIdx.x;
  int j[BUSLOAD_GATHER_PER_THREAD];
  float v[BUSLOAD_GATHER_PER_THREAD];
#pragma unroll
  for (int k = 0; k < BUSLOAD_GATHER_PER_THREAD; k++) {
    const unsigned long long i = base + (unsigned long long)k * blockDim.x;
    if (i < n) {
      j[k] = idx[i];
      v[k] = in[i];
    }
  }
#pragma unroll
  for (int k = 0; k < BUSLOAD_GATHER_PER_THREAD; k++) {
    const unsigned long long i = base + (unsigned long long)k * blockDim.x;
    if (i < n) out[(unsigned int)j[k]] = v[k];
  }
}
