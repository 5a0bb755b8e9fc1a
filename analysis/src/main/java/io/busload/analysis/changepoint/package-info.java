/**
 * Level shifts in one series (device x kernel x params, in measuring order), found two ways side by side:
 * {@link io.busload.analysis.changepoint.RobustZScore}, the coordinator's first check (one new point against the
 * median and MAD of the last 30), and {@link io.busload.analysis.changepoint.EDivisive}, E-Divisive means with a
 * permutation test (Matteson and James 2014, as MongoDB and Apache Otava use it), offline over a whole history and
 * online, on each arrival, through {@link io.busload.analysis.changepoint.OnlineDetector}.
 *
 * <p>Written here because no Java library on Maven Central implements E-Divisive or PELT (checked 2026-11: the
 * maintained implementations are R's ecp and changepoint, Python's signal-processing-algorithms, ruptures and
 * Otava; Horreum's Java port is commented out inside an application, not a library).
 */
package io.busload.analysis.changepoint;
