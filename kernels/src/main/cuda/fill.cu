// Not a benchmark: seeded random inputs filled on the GPU (agent CudaWorkload), the same pure function of
// (seed, index) as io.busload.kernels.RandomFill and RandomFloats, so the host reproduces any element for its check
// and no input has to be made on the host and copied up. Each 64-bit word of the buffer holds the elements that one
// SplitMix64 mix of (seed, word index) gives: eight int8, four fp16, two int32, two fp32 or one fp64, in the lanes
// RandomFill uses (lane 0 at the lowest address).

__device__ __forceinline__ unsigned long long busload_splitmix(unsigned long long seed, unsigned long long index) {
  unsigned long long z = seed + index * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// kind: 0 int8 (1..127), 1 fp16 [1, 2), 2 int32 (1..2^30), 3 fp32 [1, 2), 4 fp64 [1, 2) (io.busload.kernels.DeviceFill).
__device__ __forceinline__ unsigned long long busload_fill_word(unsigned long long m, int kind) {
  unsigned long long w = 0;
  switch (kind) {
    case 0:
      for (int lane = 0; lane < 8; lane++) {
        unsigned long long b = (m >> (8 * lane)) & 0x7FULL;
        w |= (b == 0 ? 127ULL : b) << (8 * lane);
      }
      return w;
    case 1:
      for (int lane = 0; lane < 4; lane++) {
        w |= (0x3C00ULL | ((m >> (16 * lane)) & 0x3FFULL)) << (16 * lane);
      }
      return w;
    case 2:
      return (1ULL + ((m >> 2) & 0x3FFFFFFFULL)) | ((1ULL + ((m >> 34) & 0x3FFFFFFFULL)) << 32);
    case 3:
      return (0x3F800000ULL | (m >> 41)) | ((0x3F800000ULL | ((m >> 9) & 0x7FFFFFULL)) << 32);
    default:
      return 0x3FF0000000000000ULL | (m >> 12);
  }
}

extern "C" __global__ void busload_fill_random(unsigned char* out, unsigned long long bytes, unsigned long long seed,
                                               int kind) {
  unsigned long long whole = bytes / 8;
  unsigned long long words = (bytes + 7) / 8;
  unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long j = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; j < words; j += step) {
    unsigned long long w = busload_fill_word(busload_splitmix(seed, j), kind);
    if (j < whole) {
      reinterpret_cast<unsigned long long*>(out)[j] = w;
    } else {
      for (unsigned long long b = 8 * j; b < bytes; b++) {
        out[b] = (unsigned char)(w >> (8 * (b - 8 * j)));
      }
    }
  }
}
