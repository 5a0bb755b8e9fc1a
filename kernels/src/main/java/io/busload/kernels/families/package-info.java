/**
 * The coalescing families, one class per {@code src/main/cuda/<family>.cu}: {@link Transpose},
 * {@link Particles}, {@link Conv2d}, {@link Gather} and {@link Reduction}. Each is a {@link
 * io.busload.kernels.Family} whose {@link io.busload.kernels.Program}s state the launch geometry, the useful
 * traffic, the coalescing model (a warp's 32 lane addresses through {@link io.busload.kernels.WarpSimulator}),
 * the CPU reference check and the same access pattern in Java for the CPU backend.
 *
 * <p>It exists apart from {@code io.busload.kernels} so that the families stay data written against the
 * general kernel model (docs/design/kernel-programs.md) and never reach into a backend.
 */
package io.busload.kernels.families;
