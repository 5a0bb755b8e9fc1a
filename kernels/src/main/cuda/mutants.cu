// Deliberately wrong kernels (family "mutants"; suite "mutants" only, never part of "coalescing"): each
// is a real kernel of the catalog with one mistake a review could miss, and each must FAIL its output check. If
// one passes, a wrong kernel of that kind could pass too. io.busload.kernels.families.Mutants gives each the real
// kernel's program (buffers, launch geometry, check) and a Java twin of the same mistake for the CPU backend.
//   busload_mutant_matmul_skip_tile:   busload_matmul_coalesced whose block (1, 1) returns at once: one 32 x 32
//                                      tile of C is never written (still the poison).
//   busload_mutant_matmul_short_tile:  busload_matmul_coalesced whose block (2, 1) stops its k loop one short:
//                                      one tile is off by one product per element (what sampling misses).
//   busload_mutant_reduction_drop_block: busload_reduction_sequential whose block 1 writes a zero partial.
//   busload_mutant_stride_skip_element: busload_stride_copy_f32 whose thread 5 of block 1 skips its third element.
//   busload_mutant_copy_late:          busload_stride_copy_f32 (stride 1) right on its first launch; from the
//                                      second on, out[0] gets in[1]: only a check after the timed launches sees it.
// Arguments and launch geometry: those of the kernel each one mutates.
#include "shared_sum.cuh"

#define BUSLOAD_MUTANT_TILE 32
#define BUSLOAD_MUTANT_BLOCK 256
#define BUSLOAD_MUTANT_PER_THREAD 4

__device__ float busload_mutant_dot(const float* __restrict__ a, const float* __restrict__ b, int n, int row,
                                    int col, int k_end) {
  const float* a_row = a + (size_t)row * n;
  const float* b_col = b + col;
  float acc = 0.0f;
  for (int k = 0; k < k_end; ++k) acc += a_row[k] * b_col[(size_t)k * n];
  return acc;
}

extern "C" __global__ void busload_mutant_matmul_skip_tile(const float* __restrict__ a, const float* __restrict__ b,
                                                           float* __restrict__ c, int n) {
  if (blockIdx.x == 1 && blockIdx.y == 1) return;
  const int row = blockIdx.y * BUSLOAD_MUTANT_TILE + threadIdx.x / BUSLOAD_MUTANT_TILE;
  const int col = blockIdx.x * BUSLOAD_MUTANT_TILE + threadIdx.x % BUSLOAD_MUTANT_TILE;
  if (row < n && col < n) c[(size_t)row * n + col] = busload_mutant_dot(a, b, n, row, col, n);
}

extern "C" __global__ void busload_mutant_matmul_short_tile(const float* __restrict__ a, const float* __restrict__ b,
                                                            float* __restrict__ c, int n) {
  const int row = blockIdx.y * BUSLOAD_MUTANT_TILE + threadIdx.x / BUSLOAD_MUTANT_TILE;
  const int col = blockIdx.x * BUSLOAD_MUTANT_TILE + threadIdx.x % BUSLOAD_MUTANT_TILE;
  const int k_end = blockIdx.x == 2 && blockIdx.y == 1 ? n - 1 : n;
  if (row < n && col < n) c[(size_t)row * n + col] = busload_mutant_dot(a, b, n, row, col, k_end);
}

extern "C" __global__ void busload_mutant_reduction_drop_block(const float* __restrict__ in,
                                                               float* __restrict__ partials, unsigned long long n) {
  __shared__ float s_data[BUSLOAD_MUTANT_BLOCK];
  const unsigned int tid = busload_shared_load(s_data, in, n, BUSLOAD_MUTANT_BLOCK);
  busload_shared_sum_halving(s_data, tid, BUSLOAD_MUTANT_BLOCK);
  if (tid == 0) partials[blockIdx.x] = blockIdx.x == 1 ? 0.0f : s_data[0];
}

extern "C" __global__ void busload_mutant_stride_skip_element(const float* __restrict__ in, float* __restrict__ out,
                                                              unsigned long long n, unsigned long long stride) {
  const unsigned long long base =
      (unsigned long long)blockIdx.x * blockDim.x * BUSLOAD_MUTANT_PER_THREAD + threadIdx.x;
  const bool skip = blockIdx.x == 1 && threadIdx.x == 5;
  for (int k = 0; k < BUSLOAD_MUTANT_PER_THREAD; k++) {
    const unsigned long long i = base + (unsigned long long)k * blockDim.x;
    if (i < n && !(skip && k == 2)) out[i] = in[i * stride];
  }
}

// Launches of busload_mutant_copy_late since the module was loaded (a context reset reloads it: zero again).
__device__ unsigned int busload_mutant_launches;

extern "C" __global__ void busload_mutant_copy_late(const float* __restrict__ in, float* __restrict__ out,
                                                    unsigned long long n, unsigned long long stride) {
  const unsigned long long base =
      (unsigned long long)blockIdx.x * blockDim.x * BUSLOAD_MUTANT_PER_THREAD + threadIdx.x;
  for (int k = 0; k < BUSLOAD_MUTANT_PER_THREAD; k++) {
    const unsigned long long i = base + (unsigned long long)k * blockDim.x;
    if (i >= n) continue;
    if (i == 0 && n > 1) {
      const unsigned int before = atomicAdd(&busload_mutant_launches, 1u);
      out[0] = before == 0 ? in[0] : in[stride];
    } else {
      out[i] = in[i * stride];
    }
  }
}
