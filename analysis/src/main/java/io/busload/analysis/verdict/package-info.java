/**
 * A/B verdicts on raw samples: is a candidate result SAME, FASTER, SLOWER or UNCLEAR against a
 * baseline, by a Mann-Whitney test and a Hodges-Lehmann shift with its interval, and what else differed between
 * the two (clocks, throttling, driver, device) so that a slower result at a lower clock says so.
 */
package io.busload.analysis.verdict;
