// Copy families: offset (misaligned) copy, element type x stride, vectorised copy.
// out[i] = in[i * stride + offset] for i < n, T being the element type moved as one access per lane.
// Every entry point's arguments must match its Java family (OffsetCopy, TypedCopy, VectorCopy).
//
// Like stride.cu, each thread moves BUSLOAD_COPY_PER_THREAD elements blockDim.x apart, loading all before
// storing any: every load instruction is still one warp reading 32 consecutive i (the pattern under study),
// with four independent loads in flight per thread (one per thread reached 65% of memcpy on an H200).
#define BUSLOAD_COPY_PER_THREAD 4

template <typename T>
__device__ __forceinline__ void busload_copy_body(const T* __restrict__ in, T* __restrict__ out,
                                                  unsigned long long n, unsigned long long stride,
                                                  unsigned long long offset) {
  const unsigned long long base =
      (unsigned long long)blockIdx.x * blockDim.x * BUSLOAD_COPY_PER_THREAD + threadIdx.x;
  T v[BUSLOAD_COPY_PER_THREAD];
#pragma unroll
  for (int k = 0; k < BUSLOAD_COPY_PER_THREAD; k++) {
    const unsigned long long i = base + (unsigned long long)k * blockDim.x;
    if (i < n) v[k] = in[i * stride + offset];
  }
#pragma unroll
  for (int k = 0; k < BUSLOAD_COPY_PER_THREAD; k++) {
    const unsigned long long i = base + (unsigned long long)k * blockDim.x;
    if (i < n) out[i] = v[k];
  }
}

// Offset copy, fp32: out[i] = in[i + offset]; loads start offset * 4 bytes past a 256-byte boundary.
extern "C" __global__ void busload_offset_copy_f32(const float* __restrict__ in, float* __restrict__ out,
                                                   unsigned long long n, unsigned long long offset) {
  busload_copy_body<float>(in, out, n, 1, offset);
}

// Element type x stride: out[i] = in[i * stride]. fp16 moves as its 16-bit pattern (a copy never converts).
#define BUSLOAD_TYPED_COPY(SUFFIX, T)                                                                       \
  extern "C" __global__ void busload_typed_copy_##SUFFIX(const T* __restrict__ in, T* __restrict__ out,    \
                                                         unsigned long long n, unsigned long long stride) { \
    busload_copy_body<T>(in, out, n, stride, 0);                                                            \
  }
BUSLOAD_TYPED_COPY(i8, signed char)
BUSLOAD_TYPED_COPY(f16, unsigned short)
BUSLOAD_TYPED_COPY(f32, float)
BUSLOAD_TYPED_COPY(f64, double)
BUSLOAD_TYPED_COPY(f32x2, float2)
BUSLOAD_TYPED_COPY(f32x4, float4)

// Vectorised copy: out[i] = in[i], one 4-, 8- or 16-byte access per lane; the best is the suite's copy kernel.
#define BUSLOAD_VECTOR_COPY(SUFFIX, T)                                                                       \
  extern "C" __global__ void busload_vector_copy_##SUFFIX(const T* __restrict__ in, T* __restrict__ out,    \
                                                          unsigned long long n) {                           \
    busload_copy_body<T>(in, out, n, 1, 0);                                                                 \
  }
BUSLOAD_VECTOR_COPY(f32, float)
BUSLOAD_VECTOR_COPY(f32x2, float2)
BUSLOAD_VECTOR_COPY(f32x4, float4)
