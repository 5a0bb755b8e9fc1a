// fp32 sum of n elements (family "reduction"), always in two launches: a first kernel writes one
// partial sum per block to partials[blockIdx.x], then busload_reduction_final (one block of 256 threads)
// sums the partials into out[0]. The variants differ only in the first kernel:
//   interleaved: Harris' reduction #1, interleaved addressing with tid % (2s): divergent warps;
//   strided:     Harris' reduction #2, interleaved addressing via index 2 * s * tid: 2s-way bank conflicts;
//   sequential:  sequential addressing (s halving, tid < s): contiguous active threads, no conflicts;
//   shuffle:     grid-stride loop, four accumulators per thread, warp shuffles, one shared float per warp.
// Every global load is coalesced (4 sectors per request); what differs is the work after the load.
// Arguments (io.busload.kernels.families.Reduction):
//   first kernels: const float* in, float* partials, unsigned long long n
//     interleaved/strided/sequential: block 256, grid ceil(n / 256), one element per thread;
//     shuffle: block 256, grid min(ceil(n / 1024), 1024), grid-stride.
//   busload_reduction_final: const float* partials, float* out, unsigned int count; block 256, grid 1.
// Shared memory is static (256 floats, or 8 for shuffle); no dynamic shared memory.
#include "shared_sum.cuh"

#define BUSLOAD_REDUCTION_BLOCK 256
#define BUSLOAD_REDUCTION_WARPS (BUSLOAD_REDUCTION_BLOCK / 32)

extern "C" __global__ void busload_reduction_interleaved(const float* __restrict__ in,
                                                         float* __restrict__ partials, unsigned long long n) {
  __shared__ float s_data[BUSLOAD_REDUCTION_BLOCK];
  const unsigned int tid = busload_shared_load(s_data, in, n, BUSLOAD_REDUCTION_BLOCK);
  for (unsigned int s = 1; s < BUSLOAD_REDUCTION_BLOCK; s *= 2) {
    if (tid % (2 * s) == 0) s_data[tid] += s_data[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = s_data[0];
}

extern "C" __global__ void busload_reduction_strided(const float* __restrict__ in,
                                                     float* __restrict__ partials, unsigned long long n) {
  __shared__ float s_data[BUSLOAD_REDUCTION_BLOCK];
  const unsigned int tid = busload_shared_load(s_data, in, n, BUSLOAD_REDUCTION_BLOCK);
  for (unsigned int s = 1; s < BUSLOAD_REDUCTION_BLOCK; s *= 2) {
    const unsigned int index = 2 * s * tid;
    if (index < BUSLOAD_REDUCTION_BLOCK) s_data[index] += s_data[index + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = s_data[0];
}

extern "C" __global__ void busload_reduction_sequential(const float* __restrict__ in,
                                                        float* __restrict__ partials, unsigned long long n) {
  __shared__ float s_data[BUSLOAD_REDUCTION_BLOCK];
  const unsigned int tid = busload_shared_load(s_data, in, n, BUSLOAD_REDUCTION_BLOCK);
  busload_shared_sum_halving(s_data, tid, BUSLOAD_REDUCTION_BLOCK);
  if (tid == 0) partials[blockIdx.x] = s_data[0];
}

// Sums a warp's 32 values into lane 0 (xor butterfly: every lane ends with the total).
__device__ __forceinline__ float busload_reduction_warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Block sum of one value per thread: warp shuffles, one float per warp through shared memory, then warp 0.
__device__ __forceinline__ float busload_reduction_block_sum(float v) {
  __shared__ float s_warp[BUSLOAD_REDUCTION_WARPS];
  const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = busload_reduction_warp_sum(v);
  if (lane == 0) s_warp[warp] = v;
  __syncthreads();
  v = threadIdx.x < BUSLOAD_REDUCTION_WARPS ? s_warp[threadIdx.x] : 0.0f;
  if (warp == 0) v = busload_reduction_warp_sum(v);
  return v;
}

extern "C" __global__ void busload_reduction_shuffle(const float* __restrict__ in,
                                                     float* __restrict__ partials, unsigned long long n) {
  const unsigned long long stride = (unsigned long long)gridDim.x * BUSLOAD_REDUCTION_BLOCK;
  unsigned long long i = (unsigned long long)blockIdx.x * BUSLOAD_REDUCTION_BLOCK + threadIdx.x;
  // Four independent accumulators: four loads in flight per thread per iteration.
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  for (; i + 3 * stride < n; i += 4 * stride) {
    a0 += in[i];
    a1 += in[i + stride];
    a2 += in[i + 2 * stride];
    a3 += in[i + 3 * stride];
  }
  for (; i < n; i += stride) a0 += in[i];
  const float total = busload_reduction_block_sum((a0 + a1) + (a2 + a3));
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

extern "C" __global__ void busload_reduction_final(const float* __restrict__ partials, float* __restrict__ out,
                                                   unsigned int count) {
  float acc = 0.0f;
  for (unsigned int i = threadIdx.x; i < count; i += BUSLOAD_REDUCTION_BLOCK) acc += partials[i];
  const float total = busload_reduction_block_sum(acc);
  if (threadIdx.x == 0) out[0] = total;
}
