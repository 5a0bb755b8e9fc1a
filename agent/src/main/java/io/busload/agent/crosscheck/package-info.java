/**
 * Checks of the measurement from outside the JVM: the resolved plan of a suite as text for the native
 * harness (deploy/gpu/crosscheck.cu), the join of Busload's and the harness's medians into per-kernel ratios
 * (JCuda within 1% of native CUDA C++), and the hardware-counter pass under Nsight Compute ({@code --profile})
 * that sets measured sectors per request and DRAM bytes beside each program's model; and the acceptance of a running
 * fleet, whose sweeps must hold every case of the standalone run on the same device once, medians within 1% of it.
 */
package io.busload.agent.crosscheck;
