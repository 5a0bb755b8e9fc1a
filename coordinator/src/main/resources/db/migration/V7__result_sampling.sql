-- Issue 12: how each result was measured, as typed fields (KernelResult.status and .sampling). result_json holds
-- them too (the REST API serves each result as received); these columns let SQL find the results that were
-- throttled, re-timed without the hold, or measured cache-resident without parsing JSON. A result stored before
-- issue 12 gets the status its other fields imply (as ResultStatus.legacy derives it) and NULL for the rest:
-- nothing else was recorded then.
ALTER TABLE results ADD COLUMN status                    VARCHAR(16);
ALTER TABLE results ADD COLUMN held_samples              INTEGER;
ALTER TABLE results ADD COLUMN unheld_samples            INTEGER;
ALTER TABLE results ADD COLUMN retimed_samples           INTEGER;
ALTER TABLE results ADD COLUMN stop_reason               VARCHAR(16);
ALTER TABLE results ADD COLUMN clocks_reading            VARCHAR(16);
ALTER TABLE results ADD COLUMN sm_clock_min_mhz          INTEGER;
ALTER TABLE results ADD COLUMN sm_clock_max_mhz          INTEGER;
ALTER TABLE results ADD COLUMN throttle_reasons          BIGINT;
ALTER TABLE results ADD COLUMN throttled_samples_dropped INTEGER;
ALTER TABLE results ADD COLUMN too_few_clean_samples     BOOLEAN;
ALTER TABLE results ADD COLUMN cache_residency           VARCHAR(16);
ALTER TABLE results ADD COLUMN working_set_bytes         BIGINT;

UPDATE results SET status = CASE
  WHEN valid THEN 'MEASURED'
  WHEN (result_json::jsonb) ->> 'method' LIKE 'skipped: %' THEN 'SKIPPED'
  WHEN (result_json::jsonb) ->> 'method' LIKE 'unavailable: %' THEN 'UNAVAILABLE'
  WHEN (result_json::jsonb) -> 'mismatches' ->> -1 ~ '^\d+ of \d+ elements differ$' THEN 'CHECK_FAILED'
  ELSE 'DEVICE_FAILED' END;
ALTER TABLE results ALTER COLUMN status SET NOT NULL;

-- The few results worth finding: measured on a throttling GPU, or possibly from L2.
CREATE INDEX results_throttled ON results (measured_at DESC) WHERE throttled_samples_dropped > 0 OR too_few_clean_samples;
CREATE INDEX results_cache_resident ON results (measured_at DESC) WHERE cache_residency = 'CACHE_RESIDENT';
