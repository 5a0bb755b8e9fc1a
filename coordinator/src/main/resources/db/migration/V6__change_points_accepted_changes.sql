-- Issue 13. V5 is taken by the pushed-results migration of another branch; this one comes after it.

-- Level shifts E-Divisive found on arrival (beside the z-score's single-point regressions in the regressions table).
-- One row per series and first result of the new level: a coordinator that restarts and finds the same change again
-- stores nothing new.
CREATE TABLE change_points (
  id                  UUID PRIMARY KEY,
  device_id           VARCHAR(255) NOT NULL,
  model               VARCHAR(255) NOT NULL,
  kernel              VARCHAR(200) NOT NULL,
  params              TEXT         NOT NULL,
  kind                VARCHAR(16)  NOT NULL,
  first_result_id     UUID         NOT NULL,
  announced_result_id UUID         NOT NULL,
  before_median       DOUBLE PRECISION NOT NULL,
  after_median        DOUBLE PRECISION NOT NULL,
  change_fraction     DOUBLE PRECISION NOT NULL,
  noise_sigma         DOUBLE PRECISION NOT NULL,
  p_value             DOUBLE PRECISION NOT NULL,
  verdict_json        TEXT         NOT NULL,
  measured_at         TIMESTAMP WITH TIME ZONE NOT NULL,
  detected_at         TIMESTAMP WITH TIME ZONE NOT NULL,
  UNIQUE (device_id, kernel, params, first_result_id)
);
CREATE INDEX change_points_newest ON change_points (detected_at DESC, id DESC);
CREATE INDEX change_points_series ON change_points (device_id, kernel, params, measured_at DESC);

-- An operator's "this change is accepted" (a new driver, a new card): the baseline of the series (or of every series
-- of the device when kernel is null) restarts at from_time. Results are never changed; only where baselines start.
CREATE TABLE accepted_changes (
  id          UUID PRIMARY KEY,
  device_id   VARCHAR(255) NOT NULL,
  kernel      VARCHAR(200),
  params      TEXT,
  from_time   TIMESTAMP WITH TIME ZONE NOT NULL,
  accepted_by VARCHAR(200) NOT NULL,
  reason      TEXT         NOT NULL CHECK (length(btrim(reason)) > 0),
  created_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX accepted_changes_device ON accepted_changes (device_id, from_time DESC);
