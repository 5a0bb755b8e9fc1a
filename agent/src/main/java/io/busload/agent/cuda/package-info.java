/**
 * The CUDA backend: JCuda's driver API over the fatbin nvcc built (cuModuleLoadData), one device per GPU.
 * Every JCuda call goes through {@link io.busload.agent.cuda.Cuda#check} so a failure names the call, its
 * arguments and the CUresult; and every call runs on the device's worker thread, never on an event loop.
 */
package io.busload.agent.cuda;
