-- Issue 4: PostgreSQL is the store (embedded locally, a server in production). V1 stays as it was written
-- (both engines read it); from here on the SQL is PostgreSQL's own.

-- Results carry what comparisons and regression checks filter on, so they need not parse result_json.
ALTER TABLE results ADD COLUMN model            VARCHAR(255);
ALTER TABLE results ADD COLUMN theoretical_peak DOUBLE PRECISION;
ALTER TABLE results ADD COLUMN driver_version   VARCHAR(100);
ALTER TABLE results ADD COLUMN agent_version    VARCHAR(100);
ALTER TABLE results ADD COLUMN fatbin_hash      VARCHAR(128);
ALTER TABLE results ADD COLUMN samples          DOUBLE PRECISION[];

UPDATE results SET
  model            = (result_json::jsonb) -> 'device' ->> 'name',
  theoretical_peak = ((result_json::jsonb) -> 'device' ->> 'theoreticalPeakBytesPerSecond')::double precision,
  driver_version   = (result_json::jsonb) -> 'device' ->> 'driverVersion',
  agent_version    = (result_json::jsonb) ->> 'agentVersion',
  fatbin_hash      = (result_json::jsonb) ->> 'fatbinHash',
  samples          = COALESCE((SELECT array_agg(s.seconds ORDER BY s.position) FROM samples s WHERE s.result_id = results.id),
                              '{}');
ALTER TABLE results ALTER COLUMN model SET NOT NULL;
ALTER TABLE results ALTER COLUMN samples SET NOT NULL;

-- One row per sample cost one index entry per sample: at 20,000 results/s that was the ingest bottleneck.
-- The samples stay in their own column, in measuring order.
DROP TABLE samples;

-- Newest first, filtered by device or kernel (REST results); a device's history of one kernel and params
-- (regression checks, history charts); the latest valid result per model (comparisons); a run's memcpy.
DROP INDEX results_by_device;
DROP INDEX results_by_kernel;
CREATE INDEX results_device_newest ON results (device_id, measured_at DESC, id DESC);
CREATE INDEX results_kernel_newest ON results (kernel, measured_at DESC, id DESC);
CREATE INDEX results_history ON results (device_id, kernel, params, measured_at DESC);
CREATE INDEX results_compare ON results (kernel, params, model, measured_at DESC) WHERE valid;
CREATE INDEX results_by_run_kernel ON results (run_id, kernel);

CREATE INDEX devices_by_name ON devices (name);

CREATE TABLE schedules (
  id             VARCHAR(64)  PRIMARY KEY,
  name           VARCHAR(200) NOT NULL,
  cron           VARCHAR(200) NOT NULL,
  time_zone      VARCHAR(64)  NOT NULL,
  suite          VARCHAR(100) NOT NULL,
  options_json   TEXT         NOT NULL,
  selector_kind  VARCHAR(16)  NOT NULL,
  selector_value VARCHAR(255),
  paused         BOOLEAN      NOT NULL,
  next_fire_at   TIMESTAMP WITH TIME ZONE,
  created_at     TIMESTAMP WITH TIME ZONE NOT NULL,
  updated_at     TIMESTAMP WITH TIME ZONE NOT NULL
);

-- The primary key is what makes a fire happen once: a second coordinator's insert of the same
-- (schedule, time) conflicts and creates nothing.
CREATE TABLE schedule_fires (
  schedule_id VARCHAR(64) NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
  fire_time   TIMESTAMP WITH TIME ZONE NOT NULL,
  fired_at    TIMESTAMP WITH TIME ZONE NOT NULL,
  late        BOOLEAN     NOT NULL,
  sweep_id    VARCHAR(64),
  message     TEXT,
  PRIMARY KEY (schedule_id, fire_time)
);

ALTER TABLE sweeps ADD COLUMN schedule_id   VARCHAR(64);
ALTER TABLE sweeps ADD COLUMN scheduled_for TIMESTAMP WITH TIME ZONE;
ALTER TABLE sweeps ADD COLUMN late          BOOLEAN NOT NULL DEFAULT FALSE;

CREATE TABLE regressions (
  id               UUID PRIMARY KEY,
  result_id        UUID         NOT NULL UNIQUE,
  kind             VARCHAR(16)  NOT NULL,
  device_id        VARCHAR(255) NOT NULL,
  model            VARCHAR(255) NOT NULL,
  kernel           VARCHAR(200) NOT NULL,
  params           TEXT         NOT NULL,
  bandwidth        DOUBLE PRECISION NOT NULL,
  baseline_median  DOUBLE PRECISION NOT NULL,
  baseline_mad     DOUBLE PRECISION NOT NULL,
  noise_band       DOUBLE PRECISION NOT NULL,
  robust_z         DOUBLE PRECISION NOT NULL,
  change_fraction  DOUBLE PRECISION NOT NULL,
  history_count    INTEGER      NOT NULL,
  environment_json TEXT         NOT NULL,
  measured_at      TIMESTAMP WITH TIME ZONE NOT NULL,
  detected_at      TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX regressions_newest ON regressions (detected_at DESC, id DESC);
CREATE INDEX regressions_by_device ON regressions (device_id, kernel, detected_at DESC);
