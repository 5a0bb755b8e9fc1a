// Square fp32 transpose, out[c * n + r] = in[r * n + c] (family "transpose"): the canonical case
// where naive code cannot coalesce both the loads and the stores.
// Arguments of every entry point, in order (io.busload.kernels.families.Transpose):
//   const float* in, float* out, unsigned int n      (row-major n x n, n a multiple of 32)
// Launch, every variant: block (32, 8), grid (n / 32, n / 32), no dynamic shared memory. Each block moves
// one 32 x 32 tile; each thread moves 4 elements, rows 8 apart, so the copy, the naive and the tiled
// variants differ only in where the stores go and in how the tile passes through shared memory.
// Shared memory is static: 4096 bytes in tiled (32 x 32), 4224 bytes in padded (32 x 33).
// Index math in 64 bits: n * n passes 2^31 at n = 46341.
#define BUSLOAD_TRANSPOSE_TILE 32
#define BUSLOAD_TRANSPOSE_ROWS 8

// Straight from global memory, each thread loading along a row of the tile (coalesced): stored in place
// (the copy) or at the transposed place (the naive transpose). The two kernels below differ only in that.
template <bool TRANSPOSED>
__device__ __forceinline__ void busload_transpose_direct(const float* __restrict__ in, float* __restrict__ out,
                                                         unsigned int n) {
  const unsigned long long x = (unsigned long long)blockIdx.x * BUSLOAD_TRANSPOSE_TILE + threadIdx.x;
  const unsigned long long y = (unsigned long long)blockIdx.y * BUSLOAD_TRANSPOSE_TILE + threadIdx.y;
  if (x >= n) return;
#pragma unroll
  for (int j = 0; j < BUSLOAD_TRANSPOSE_TILE; j += BUSLOAD_TRANSPOSE_ROWS) {
    if (y + j < n) out[TRANSPOSED ? x * n + (y + j) : (y + j) * n + x] = in[(y + j) * n + x];
  }
}

// The upper bound: the same tiles and the same loads, stored in place (no transpose), so both the loads
// and the stores are coalesced (4 sectors per warp request each).
extern "C" __global__ void busload_transpose_copy(const float* __restrict__ in, float* __restrict__ out,
                                                  unsigned int n) {
  busload_transpose_direct<false>(in, out, n);
}

// Naive: loads along a row (coalesced), stores down a column: the 32 lanes of a warp store n * 4 bytes
// apart, one sector each (32 sectors per request).
extern "C" __global__ void busload_transpose_naive(const float* __restrict__ in, float* __restrict__ out,
                                                   unsigned int n) {
  busload_transpose_direct<true>(in, out, n);
}

// Through a shared tile of TILE x (TILE + PAD) floats: loaded row by row (coalesced), stored row by row of the
// output (coalesced) by reading a column of the tile. The two kernels below differ only in PAD.
template <int PAD>
__device__ __forceinline__ void busload_transpose_through_tile(const float* __restrict__ in, float* __restrict__ out,
                                                               unsigned int n) {
  __shared__ float tile[BUSLOAD_TRANSPOSE_TILE][BUSLOAD_TRANSPOSE_TILE + PAD];
  unsigned long long x = (unsigned long long)blockIdx.x * BUSLOAD_TRANSPOSE_TILE + threadIdx.x;
  unsigned long long y = (unsigned long long)blockIdx.y * BUSLOAD_TRANSPOSE_TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < BUSLOAD_TRANSPOSE_TILE; j += BUSLOAD_TRANSPOSE_ROWS) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  }
  __syncthreads();
  x = (unsigned long long)blockIdx.y * BUSLOAD_TRANSPOSE_TILE + threadIdx.x;
  y = (unsigned long long)blockIdx.x * BUSLOAD_TRANSPOSE_TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < BUSLOAD_TRANSPOSE_TILE; j += BUSLOAD_TRANSPOSE_ROWS) {
    if (x < n && y + j < n) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

// Tiled: with 32 floats per tile row, the 32 lanes reading a column of the tile all fall in one bank: a 32-way
// bank conflict on every shared load of the store phase.
extern "C" __global__ void busload_transpose_tiled(const float* __restrict__ in, float* __restrict__ out,
                                                   unsigned int n) {
  busload_transpose_through_tile<0>(in, out, n);
}

// Tiled + padded: one unused float per tile row (stride 33) puts the 32 lanes of a column in 32 different
// banks; global traffic is the same as tiled.
extern "C" __global__ void busload_transpose_padded(const float* __restrict__ in, float* __restrict__ out,
                                                    unsigned int n) {
  busload_transpose_through_tile<1>(in, out, n);
}
