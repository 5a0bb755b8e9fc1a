/**
 * The MATMUL family ({@code src/main/cuda/matmul.cu}): square fp32 {@code C = A x B} with the same
 * arithmetic under different thread-to-data mappings, naive (thread x on rows) against the coalesced remap,
 * row-per-thread against column-per-thread, and cuBLAS SGEMM as the reference every kernel is set against as a
 * percentage ({@link io.busload.kernels.matmul.PercentOfCublas}).
 *
 * <p>It exists to show that coalescing decides speed when the work is identical: the traffic model is the same
 * for every kernel (2 n^3 FLOPs, 3 n^2 floats of useful bytes), the coalescing model differs (32 sectors per
 * request for a warp whose lanes leap a row apart, 4 for lanes along a row, 1 for a broadcast), and so do the
 * times. The reference check compares sampled elements with a double-precision dot product under a tolerance
 * fit for fp32 sums of n terms ({@link io.busload.kernels.matmul.MatmulReference}).
 */
package io.busload.kernels.matmul;
