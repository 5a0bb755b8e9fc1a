// Deliberate faults (family "faults"; suite "faults" only, never part of "coalescing"): they check that
// a kernel gone wrong fails its own case with the CUDA error's name and that the agent carries on.
// Arguments (io.busload.kernels.families.Faults):
//   busload_faults_oob_write_f32: float* out, unsigned long long n, unsigned long long offset
//     writes out[offset + i] for i < n: with offset 2^44 elements (64 TiB past the buffer) every write is to an
//     address nothing maps, so the launch fails with CUDA_ERROR_ILLEGAL_ADDRESS (a sticky error: the context
//     must be reset before the next case).
//   busload_faults_copy_f32: const float* in, float* out, unsigned long long n  (out[i] = in[i], the valid case)
// Launch, both: block 256, grid ceil(n / 256), no shared memory.

extern "C" __global__ void busload_faults_oob_write_f32(float* out, unsigned long long n,
                                                        unsigned long long offset) {
  const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[offset + i] = 1.0f;
}

extern "C" __global__ void busload_faults_copy_f32(const float* __restrict__ in, float* __restrict__ out,
                                                   unsigned long long n) {
  const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
