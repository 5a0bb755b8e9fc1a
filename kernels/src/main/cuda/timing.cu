// Not a benchmark: the timing harness's own kernel (agent CudaWorkload.timeBatch, deploy/gpu/crosscheck.cu).
//
// A sample is cuEventRecord(start), a batch of launches, cuEventRecord(stop). When the GPU is idle, the start
// event fires at once and the GPU then waits for the host to queue each launch: the host's enqueue time lands
// inside the sample. JCuda's path is slower than C++ (JNI, FFM downcalls for cuBLAS), so on an H100 a cuBLAS
// SGEMM sample of two 2.7 ms launches was 0.6-1.3% slower than the native harness's (2026-11-22, H100 probe).
// This kernel holds the stream until the host has queued the whole batch (nvbench's "blocking kernel"): the host
// launches it, records start, queues the batch and the stop event, then sets *release. A timeout ends it if the
// host never does (a full launch queue blocks the host): *timed_out tells the host the sample is not to be used.

extern "C" __global__ void busload_block_until_released(const volatile int* release, volatile int* timed_out,
                                                        unsigned long long timeout_ns) {
  unsigned long long began;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(began));
  for (;;) {
    if (*release != 0) return;
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - began > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}
