/**
 * The few statistics the verdicts share: robust location and scale (median, MAD), and the Hodges-Lehmann shift
 * with the confidence interval that inverts the Mann-Whitney test (commons-statistics does the test itself).
 */
package io.busload.analysis.stats;
