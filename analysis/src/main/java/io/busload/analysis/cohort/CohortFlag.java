package io.busload.analysis.cohort;

/**
 * A device outside its cohort's band for one kernel case.
 *
 * @param relative (value - peers' median) / peers' median: -0.07 is 7% below
 * @param band the band's half-width, as a fraction of the peers' median
 * @param peers the other devices of the cohort with a figure for this case
 * @param sameClocks whether its clocks matched its peers' median clocks (null: not recorded)
 * @param sentence "this H100 is 7% below its 11 peers on stride-copy-fp32 (size=...), at the same clocks"
 */
public record CohortFlag(String deviceId, String deviceName, String driver, String series, String kernel,
    double value, double peerMedian, double relative, double band, int peers, Boolean sameClocks, String sentence) {}
