package io.busload.protocol;

/** Why sampling stopped: the stopping rule's verdict, typed; printers put it in words. */
public enum StopReason {
  /** The relative spread of the last window of samples fell under the rule's threshold. */
  SPREAD_SETTLED,
  /** The rule's time cap was reached before the spread settled. */
  TIME_CAP,
  /** The rule's sample cap was reached. */
  SAMPLE_CAP
}
