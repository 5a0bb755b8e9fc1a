/**
 * A device's health by an absolute measure, not against a cohort: its error counters (ECC, retired pages or
 * remapped rows, PCIe replays) across a run, the XID errors seen during it, its memcpy bandwidth against a floor for
 * its model, and throttling that persists through the run, judged HEALTHY, DEGRADED or FAILED with a typed reason
 * for each finding. The rules and their thresholds are in docs/design/health.md. Plain Java, so the agent's command
 * line and the coordinator judge alike.
 */
package io.busload.analysis.health;
