/**
 * The one measurement pipeline (issue 2, must-have 5), read top to bottom: resolve the suite and options,
 * allocate, fill with random input, poison the output, run once and check against the CPU reference, warm
 * up, take batched samples until the {@link io.busload.agent.measure.StoppingRule} says stop, summarise in
 * SI units into protocol {@code KernelResult}s, free. Backends only launch and time (nvbench's split).
 */
package io.busload.agent.measure;
