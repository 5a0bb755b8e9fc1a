/**
 * Benchmarks run by hand (main classes, not tests): they print figures for a report and assert nothing, because a
 * wall-clock limit on a shared 2-core build machine would fail for the machine's sake, not the code's.
 */
package io.busload.dashboard.bench;
