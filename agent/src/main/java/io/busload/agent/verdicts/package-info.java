/**
 * The verdicts on the command line: {@code busload compare BASELINE CANDIDATE}, the CI gate that judges
 * two result files (or sweeps and devices on a coordinator) kernel by kernel on their raw samples, and
 * {@code busload evaluate}, which runs the change detectors and the cohort check on data with a known answer and on
 * the result files in docs/results. The statistics are the analysis module's; this package reads result files,
 * asks a coordinator, and prints.
 */
package io.busload.agent.verdicts;
