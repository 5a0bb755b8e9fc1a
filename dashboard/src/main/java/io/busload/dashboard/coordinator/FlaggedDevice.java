package io.busload.dashboard.coordinator;

/**
 * A device outside its cohort's band for one kernel case ({@code GET /api/cohort-flags}): the same model and driver,
 * compared with its peers; {@code relative} -0.07 is 7% below their median.
 */
public record FlaggedDevice(String deviceId, String deviceName, String driver, String series, String kernel,
    double value, double peerMedian, double relative, double band, int peers, Boolean sameClocks, String sentence) {}
