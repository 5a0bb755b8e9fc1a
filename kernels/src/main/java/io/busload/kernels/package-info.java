/**
 * The kernel catalog as data: for every kernel its CUDA entry point, parameter axes,
 * launch geometry, traffic model, coalescing model (from simulating a warp's 32 addresses) and CPU reference
 * check, plus the fatbin nvcc built from {@code src/main/cuda} (kept in {@code src/main/fatbin}).
 *
 * <p>It exists apart from the agent so that the coordinator and the dashboard can validate suites and options
 * and explain results without a GPU, JCuda or Vert.x on their class path.
 */
package io.busload.kernels;
