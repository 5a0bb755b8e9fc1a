/**
 * Benchmarks of the coordinator, run as main classes on demand (speed figures depend on the machine and its load,
 * so they are printed, not asserted). {@link io.busload.coordinator.bench.StoreBench}: issue 4's ingest rate over
 * the clustered event bus into PostgreSQL, CPU per result, query times and export memory at a million results.
 */
package io.busload.coordinator.bench;
