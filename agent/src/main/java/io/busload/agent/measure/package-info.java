/**
 * The one measurement pipeline, read top to bottom: resolve the suite and options (with each
 * case's working set against L2), allocate, fill with random input, poison the output, run once and check
 * against the CPU reference, warm up and calibrate, take batched samples until the
 * {@link io.busload.agent.measure.StoppingRule} says stop ({@link io.busload.agent.measure.Sampler}: how each batch
 * was held, NVML clocks after each, throttled samples dropped), summarise in SI units into protocol
 * {@code KernelResult}s with a typed status and sampling record, free. Backends only launch and time (nvbench's
 * split); the method's words are the report package's.
 */
package io.busload.agent.measure;
