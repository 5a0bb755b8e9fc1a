/**
 * Showing that the verdicts work on data with a known answer: a seeded generator of labelled series
 * (steps in noise, slow drifts, single outliers, bimodal noise, stationary noise), the scoring of both change
 * detectors on it (precision, recall, detection delay, false alarms per 1,000 points), and a simulated fleet with
 * planted degraded devices for the cohort check. Same seed, same corpus, same table.
 */
package io.busload.analysis.evaluation;
