// Interconnect suite: the SM's side of a link. The copy engines' side is the driver's cuMemcpy*Async
// (Step.Copy); these kernels move the same bytes with loads and stores, so the link is driven by the SMs:
//  - host to device: src is mapped pinned host memory (zero-copy loads over PCIe or C2C), dst device memory;
//  - device to host: src device memory, dst mapped pinned host memory (stores cross the link);
//  - peer: one side is the other GPU's memory, reached through peer access (NVLink or PCIe).
// Every entry point's arguments must match the Java family (io.busload.kernels.families.Interconnect).
//
// 16 bytes per lane (Hopper habits: 16-byte accesses coalesced across the warp) and four independent loads in
// flight per thread before the first store: a link's latency is microseconds, so the bytes in flight, not the
// instruction count, set the rate. The grid is persistent (grid-stride), its size chosen by the family.
#define BUSLOAD_LINK_PER_THREAD 4

__device__ __forceinline__ void busload_link_copy(int4* __restrict__ dst, const int4* __restrict__ src,
                                                  unsigned long long n, unsigned long long block,
                                                  unsigned long long blocks) {
  const unsigned long long step = blocks * blockDim.x * BUSLOAD_LINK_PER_THREAD;
  for (unsigned long long base = block * blockDim.x * BUSLOAD_LINK_PER_THREAD + threadIdx.x; base < n;
       base += step) {
    int4 v[BUSLOAD_LINK_PER_THREAD];
#pragma unroll
    for (int k = 0; k < BUSLOAD_LINK_PER_THREAD; k++) {
      const unsigned long long i = base + (unsigned long long)k * blockDim.x;
      if (i < n) v[k] = src[i];
    }
#pragma unroll
    for (int k = 0; k < BUSLOAD_LINK_PER_THREAD; k++) {
      const unsigned long long i = base + (unsigned long long)k * blockDim.x;
      if (i < n) dst[i] = v[k];
    }
  }
}

// One direction: dst[i] = src[i] for i < n 16-byte words.
extern "C" __global__ void busload_interconnect_copy_v4(int4* __restrict__ dst, const int4* __restrict__ src,
                                                unsigned long long n) {
  busload_link_copy(dst, src, n, blockIdx.x, gridDim.x);
}

// Both directions at once from one launch: the first half of the blocks copies src0 to dst0, the second half src1
// to dst1 (one kernel, so both directions start together without a second stream). gridDim.x must be even.
extern "C" __global__ void busload_interconnect_copy2_v4(int4* __restrict__ dst0, const int4* __restrict__ src0,
                                                 int4* __restrict__ dst1, const int4* __restrict__ src1,
                                                 unsigned long long n) {
  const unsigned long long half = gridDim.x / 2;
  if (blockIdx.x < half) {
    busload_link_copy(dst0, src0, n, blockIdx.x, half);
  } else {
    busload_link_copy(dst1, src1, n, blockIdx.x - half, half);
  }
}
