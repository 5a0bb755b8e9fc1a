// A block's sum in shared memory, the shape of the first reduction kernels and of their mutant: one element per
// thread is loaded (zero past n), then the block adds pairs until s_data[0] holds the block's sum. Included by
// reduction.cu and mutants.cu; the build puts every .cu file into one translation unit, hence the guard.
#pragma once

// Loads this block's elements into s_data and waits for the whole block; the thread's index in it.
__device__ __forceinline__ unsigned int busload_shared_load(float* s_data, const float* __restrict__ in,
                                                            unsigned long long n, unsigned int block) {
  const unsigned int tid = threadIdx.x;
  const unsigned long long i = (unsigned long long)blockIdx.x * block + tid;
  s_data[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  return tid;
}

// Sequential addressing: s halving from block / 2, threads tid < s active (contiguous, no bank conflicts).
__device__ __forceinline__ void busload_shared_sum_halving(float* s_data, unsigned int tid, unsigned int block) {
  for (unsigned int s = block / 2; s > 0; s /= 2) {
    if (tid < s) s_data[tid] += s_data[tid + s];
    __syncthreads();
  }
}
