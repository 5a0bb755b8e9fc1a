package io.busload.coordinator.notify;

import io.busload.analysis.health.HealthReason;
import io.busload.protocol.Clocks;
import java.util.List;
import java.util.Map;

/**
 * The typed details of a notice, one record per kind of event. They are stored as the event's details JSON and sent
 * in a webhook's body, so a receiver reads fields instead of parsing prose; the component names are the JSON's
 * field names that receivers know, and instants are ISO-8601 text.
 */
sealed interface NoticeDetails {
  /** A device's health verdict changed; {@code before} null when it was never judged. */
  record Health(String device, String model, String state, String before, List<HealthReason> reasons,
      List<String> notRead, String runId, String resultId, String since) implements NoticeDetails {}

  /** A lasting level shift; the driver and clocks are null where the series has no result on that side. */
  record ChangePoint(String device, String model, String kernel, String params, String direction,
      double beforeBytesPerSecond, double afterBytesPerSecond, double changeFraction, String firstResultId,
      String measuredAt, String driverVersion, String driverVersionBefore, Clocks clocks) implements NoticeDetails {}

  /** A sweep that finished with runs that did not succeed, each as its run, device and state. */
  record SweepFailed(String sweep, String suite, int completed, int total, List<Map<String, String>> failedRuns)
      implements NoticeDetails {}

  /** An agent gone quiet or heard from again, with the ids of its devices. */
  record Agent(String agent, String host, String lastSeen, List<String> devices) implements NoticeDetails {}

  /** A certificate near or past its end. */
  record Certificate(String role, String subject, String serial, String notAfter, long daysLeft)
      implements NoticeDetails {}

  /** A device's figure outside its cohort's band; {@code sameClocks} null when the clocks were not compared. */
  record CohortFlag(String device, String model, String driverVersion, String series, String kernel,
      double bytesPerSecond, double peerMedianBytesPerSecond, double relative, double band, int peers,
      Boolean sameClocks) implements NoticeDetails {}
}
