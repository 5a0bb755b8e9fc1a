/**
 * NVML through Java's FFM API ({@code java.lang.foreign}), as cuBLAS is reached: the GPU's SM and memory
 * clocks and its throttle reasons, read after every sample so that samples taken while the GPU throttled are dropped
 * and counted (nvbench's rule). {@code libnvidia-ml.so.1} ships with the driver on every GPU host, and no Java
 * binding of it is on Maven Central that our builds may use; the four functions we call are bound here. Where the
 * library is missing or fails, the sensor says so, typed, and nothing is read.
 */
package io.busload.agent.cuda.nvml;
