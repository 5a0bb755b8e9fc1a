/**
 * The CPU backend, for hosts without a GPU: the same access patterns run in Java on off-heap memory
 * ({@code java.lang.foreign}), one thread per core, timed with {@code System.nanoTime}. Its numbers are labelled
 * as the CPU they are, never as a GPU's.
 */
package io.busload.agent.cpu;
