// Strided fp32 copy, the coalescing experiment of issue 2: out[i] = in[i * stride] for i < n.
// One element per thread; 64-bit index math so n * stride past 2^31 stays right.
// Arguments must match io.busload.kernels.Catalog.STRIDE_COPY_FP32 (input, output, elements, stride).

extern "C" __global__ void busload_stride_copy_f32(const float* __restrict__ in, float* __restrict__ out,
                                                   unsigned long long n, unsigned long long stride) {
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i * stride];
  }
}
