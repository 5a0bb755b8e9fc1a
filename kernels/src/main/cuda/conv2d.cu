// 3x3 fp64 convolution on an n x n row-major image (family "conv2d"): an edge filter (-1 everywhere, 8 in the
// centre) whose only difference between the two kernels is which of row and column threadIdx.x walks; taps outside
// the image skipped (zero padding), accumulated in the order (dr, dc) = (-1,-1), (-1,0), ..., (1,1) with
// explicit fma, starting from 0.0, so the CPU reference (Math.fma in the same order) matches.
// Arguments of both entry points, in order (io.busload.kernels.families.Conv2d):
//   const double* in, double* out, unsigned int n
// Launch, both: block (32, 8), grid (ceil(n / 32), ceil(n / 8)), no shared memory.
// The two differ only in which image axis threadIdx.x walks.

__device__ __forceinline__ double busload_conv2d_at(const double* __restrict__ in, unsigned int n,
                                                    long long r, long long c) {
  double acc = 0.0;
#pragma unroll
  for (int dr = -1; dr <= 1; dr++) {
#pragma unroll
    for (int dc = -1; dc <= 1; dc++) {
      const long long rr = r + dr, cc = c + dc;
      if (rr >= 0 && rr < (long long)n && cc >= 0 && cc < (long long)n) {
        const double w = (dr == 0 && dc == 0) ? 8.0 : -1.0;
        acc = fma(in[rr * n + cc], w, acc);
      }
    }
  }
  return acc;
}

// Naive: threadIdx.x walks rows, so the 32 lanes of a warp are n * 8 bytes apart (32 sectors per request
// for each of the 9 loads and for the store).
extern "C" __global__ void busload_conv2d_naive(const double* __restrict__ in, double* __restrict__ out,
                                                unsigned int n) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long c = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= n || c >= n) return;
  out[r * n + c] = busload_conv2d_at(in, n, r, c);
}

// Coalesced: threadIdx.x walks columns: 32 consecutive doubles, 8 sectors per request (256 bytes).
extern "C" __global__ void busload_conv2d_coalesced(const double* __restrict__ in, double* __restrict__ out,
                                                    unsigned int n) {
  const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= n || c >= n) return;
  out[r * n + c] = busload_conv2d_at(in, n, r, c);
}
