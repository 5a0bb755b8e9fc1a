-- Each device's newest health verdict (docs/design/health.md): HEALTHY, DEGRADED or FAILED, with its reasons and what
-- was not read, judged from its newest run's NVML counters, XID events, memcpy bandwidth and throttling. One row per
-- device; `since` moves only when the state changes, which is what a notice of a change is keyed on. A device never
-- judged (no result with health read) has no row: "not judged", never HEALTHY.
CREATE TABLE device_health (
  device_id  VARCHAR(255) PRIMARY KEY,
  model      VARCHAR(255) NOT NULL,
  state      VARCHAR(16)  NOT NULL CHECK (state IN ('HEALTHY', 'DEGRADED', 'FAILED')),
  reasons    TEXT         NOT NULL,
  not_read   TEXT         NOT NULL,
  run_id     VARCHAR(64),
  result_id  UUID         NOT NULL,
  judged_at  TIMESTAMP WITH TIME ZONE NOT NULL,
  since      TIMESTAMP WITH TIME ZONE NOT NULL
);
