/**
 * Benchmarks of the coordinator, run as main classes on demand (speed figures depend on the machine and its load,
 * so they are printed, not asserted). {@link io.busload.coordinator.bench.StoreBench}: the ingest rate (20,000
 * results/s wanted) over
 * the clustered event bus into PostgreSQL, CPU per result, query times and export memory at a million results.
 */
package io.busload.coordinator.bench;
