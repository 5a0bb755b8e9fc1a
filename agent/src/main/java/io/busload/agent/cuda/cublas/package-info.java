/**
 * cuBLAS SGEMM as the matmul family's reference, reached through Java's FFM API
 * ({@code java.lang.foreign}) rather than JCublas: JCublas 12.6 links {@code libcublas.so.12}, and the H100/H200
 * hosts have CUDA 13's {@code libcublas.so.13} (docs/design/invariants.md#platform). Binding the handful of C
 * functions we call ourselves works against whichever {@code libcublas.so.*} the host has.
 *
 * <p>Contexts: cuBLAS runs on the CUDA runtime, and runtime calls operate on the driver context current to the
 * calling thread; the runtime expects it to be a device's primary context (NVIDIA, CUDA Runtime API,
 * "Interactions with the CUDA Driver API"; a non-primary one gives cudaErrorIncompatibleDriverContext). The CUDA
 * backend makes the primary context current on its worker thread ({@code cuDevicePrimaryCtxRetain} +
 * {@code cuCtxSetCurrent}), so JCuda's buffers and cuBLAS share one context and one legacy default stream.
 * {@link io.busload.agent.cuda.cublas.Cublas} keeps one cuBLAS handle per context and refuses to run with no
 * current context, so that cuBLAS never quietly initialises device 0's primary context behind our back.
 */
package io.busload.agent.cuda.cublas;
