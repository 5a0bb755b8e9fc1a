// Square fp32 matmul C = A x B, all n x n row-major (family MATMUL): the naive mapping against the remap that
// lets a warp's 32 lanes read consecutive elements, each as a % of cuBLAS, and row- against column-per-thread.
// Same multiplies and adds in every kernel; only the thread-to-data mapping differs. Arguments of every entry point: (const float* a, const float* b, float* c, int n), matching
// io.busload.kernels.matmul.Matmul. Offsets are 64-bit (size_t) so n * n past 2^31 stays right.
// A warp is 32 consecutive threadIdx.x (x fills before y moves): which index moves with threadIdx.x decides
// whether a load slides along a row (coalesced) or leaps n floats per lane (one sector per lane).

// Side of the 2-D block tile of the naive and coalesced kernels: 32 x 32 = 1024 threads.
#define BUSLOAD_MATMUL_TILE 32
// Outputs each thread of the row/column-per-thread kernels computes: a strip of its row (column) of C.
#define BUSLOAD_MATMUL_STRIP 32

// One output element: the dot product of row `row` of a with column `col` of b, accumulated in fp32 in k order.
__device__ __forceinline__ float busload_matmul_dot(const float* __restrict__ a, const float* __restrict__ b,
                                                    int n, int row, int col) {
  const float* a_row = a + (size_t)row * n;
  const float* b_col = b + col;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) {
    acc += a_row[k] * b_col[(size_t)k * n];
  }
  return acc;
}

// Naive, thread x on rows: block (32, 32), grid (n / 32, n / 32). A warp's lanes hold 32 consecutive rows and
// one column: loads of A and stores of C leap n floats per lane (32 sectors per request), B is a broadcast.
extern "C" __global__ void busload_matmul_naive(const float* __restrict__ a, const float* __restrict__ b,
                                                float* __restrict__ c, int n) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) {
    c[(size_t)row * n + col] = busload_matmul_dot(a, b, n, row, col);
  }
}

// The remap: a 1-D block of 1024 threads, grid (n / 32, n / 32), the fast thread index on columns on purpose.
// A warp's lanes hold one row and 32 consecutive columns: B loads and C stores are 4 sectors, A a broadcast.
extern "C" __global__ void busload_matmul_coalesced(const float* __restrict__ a, const float* __restrict__ b,
                                                    float* __restrict__ c, int n) {
  const int row = blockIdx.y * BUSLOAD_MATMUL_TILE + threadIdx.x / BUSLOAD_MATMUL_TILE;
  const int col = blockIdx.x * BUSLOAD_MATMUL_TILE + threadIdx.x % BUSLOAD_MATMUL_TILE;
  if (row < n && col < n) {
    c[(size_t)row * n + col] = busload_matmul_dot(a, b, n, row, col);
  }
}

// Row per thread: thread x on rows, each thread walking a strip of 32 columns of its row; grid
// (ceil(n / blockDim.x), n / 32). The strip keeps a warp's addresses exactly those of one thread per row
// (lanes on consecutive rows, one column) while giving an n = 4096 matrix 16384 warps instead of 128.
extern "C" __global__ void busload_matmul_row_per_thread(const float* __restrict__ a, const float* __restrict__ b,
                                                         float* __restrict__ c, int n) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) {
    return;
  }
  const int first = blockIdx.y * BUSLOAD_MATMUL_STRIP;
  const int last = min(first + BUSLOAD_MATMUL_STRIP, n);
  for (int col = first; col < last; ++col) {
    c[(size_t)row * n + col] = busload_matmul_dot(a, b, n, row, col);
  }
}

// Column per thread (the fix): thread x on columns, each thread walking a strip of 32 rows of its column;
// grid (ceil(n / blockDim.x), n / 32). Lanes on consecutive columns: B loads and C stores coalesce, A broadcasts.
extern "C" __global__ void busload_matmul_col_per_thread(const float* __restrict__ a, const float* __restrict__ b,
                                                         float* __restrict__ c, int n) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= n) {
    return;
  }
  const int first = blockIdx.y * BUSLOAD_MATMUL_STRIP;
  const int last = min(first + BUSLOAD_MATMUL_STRIP, n);
  for (int row = first; row < last; ++row) {
    c[(size_t)row * n + col] = busload_matmul_dot(a, b, n, row, col);
  }
}
