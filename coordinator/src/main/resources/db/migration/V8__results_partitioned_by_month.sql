-- Issue 16 point 4: a year of nights (624,000 results a night) on one server. StoreBench's year figures
-- (docs/results/2026-11-24-storage/) are the reason for each step:
-- * results are partitioned by month of measured_at, so a month's table and indexes are what ingest touches, and
--   an operator can detach, archive or drop a whole month without a DELETE that bloats the rest;
-- * result_json (about 1.4 KB of JSON, the device's description repeated in every row) was stored uncompressed:
--   PostgreSQL compresses a value only when its row passes about 2 KB (TOAST_TUPLE_THRESHOLD, fixed at compile time;
--   toast_tuple_target cannot lower it), and a result's row stays just under. It becomes bytea in ResultJson's form:
--   a format tag, then the JSON compressed with a preset dictionary (about 290 bytes). Rows converted here keep their
--   JSON as it was, under tag 0; new ones are compressed. method and origin, which SQL read out of the JSON, become
--   columns of their own;
-- * indexes: the ones the queries of store/ use, no more (StoreBench prints each query's plan and index use).
--
-- A partitioned table's unique keys must hold the partition key, so the key is (id, measured_at). A redelivered
-- result is the agent's same record (same id, same measured_at), so the upsert by id still stores it once.
-- result_counters and pushed_results lose their foreign keys to results (a partitioned table's key is not id
-- alone); nothing deletes results row by row, and dropping a month should drop its counters with it.

ALTER TABLE result_counters DROP CONSTRAINT IF EXISTS result_counters_result_id_fkey;
ALTER TABLE pushed_results DROP CONSTRAINT IF EXISTS pushed_results_result_id_fkey;

-- The month partition that holds measured_at = at, made when missing (by this migration for stored months, by
-- ResultStore for each new month it stores into). Month bounds are UTC midnights, computed without a time zone
-- so that the server's TimeZone and its summer time cannot move them.
CREATE FUNCTION results_partition_for(at TIMESTAMP WITH TIME ZONE) RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
  first TIMESTAMP := date_trunc('month', at AT TIME ZONE 'UTC');
  name  TEXT := 'results_' || to_char(first, 'YYYY_MM');
BEGIN
  IF to_regclass(name) IS NULL THEN
    BEGIN
      EXECUTE format('CREATE TABLE %I PARTITION OF results FOR VALUES FROM (%L) TO (%L)', name, (first AT TIME ZONE 'UTC'),
          ((first + INTERVAL '1 month') AT TIME ZONE 'UTC'));
    EXCEPTION WHEN duplicate_table THEN
      NULL; -- another coordinator made it meanwhile
    END;
  END IF;
  RETURN name;
END $$;

ALTER TABLE results RENAME TO results_unpartitioned;
ALTER TABLE results_unpartitioned DROP CONSTRAINT results_pkey;
DROP INDEX results_newest;
DROP INDEX results_by_sweep;
DROP INDEX results_device_newest;
DROP INDEX results_kernel_newest;
DROP INDEX results_history;
DROP INDEX results_compare;
DROP INDEX results_by_run_kernel;

-- LIKE keeps every column (those of later migrations too), in order, with NOT NULL and defaults: V7's status (NOT
-- NULL, backfilled there) and sampling columns come along with their values.
CREATE TABLE results (LIKE results_unpartitioned INCLUDING DEFAULTS)
  PARTITION BY RANGE (measured_at);

ALTER TABLE results ALTER COLUMN result_json TYPE BYTEA USING NULL;
ALTER TABLE results ADD COLUMN IF NOT EXISTS method TEXT;
ALTER TABLE results ADD COLUMN IF NOT EXISTS origin TEXT;

SELECT results_partition_for(m)
  FROM (SELECT DISTINCT date_trunc('month', measured_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS m
          FROM results_unpartitioned) months;
-- Every column by name, so that columns other migrations add come along; result_json under tag 0 (as it is).
DO $$
DECLARE
  kept TEXT := (SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
                 WHERE attrelid = 'results_unpartitioned'::regclass AND attnum > 0 AND NOT attisdropped
                   AND attname NOT IN ('result_json', 'method', 'origin'));
BEGIN
  EXECUTE format('INSERT INTO results (%s, result_json, method, origin) SELECT %s,'
      || ' ''\x00''::bytea || convert_to(result_json, ''UTF8''), (result_json::jsonb) ->> ''method'','
      || ' (result_json::jsonb) -> ''origin'' FROM results_unpartitioned', kept, kept);
END $$;
DROP TABLE results_unpartitioned;

ALTER TABLE results ADD PRIMARY KEY (id, measured_at);
-- Newest first (REST results unfiltered, CSV export); by device (REST filter); a sweep's results; a device's history
-- of one kernel and params (regression checks, History, verdicts); the latest valid result per model (comparisons,
-- Compare); a run's memcpy (comparisons). results_kernel_newest is gone: StorageBench found only the REST ?kernel=
-- filter using it (about 100 bytes a result, 8% of a result's bytes), and that filter reads newest-first through
-- results_newest as fast, a kernel being one of a few families in every night's results.
CREATE INDEX results_newest ON results (measured_at DESC, id DESC);
CREATE INDEX results_by_sweep ON results (sweep_id);
CREATE INDEX results_device_newest ON results (device_id, measured_at DESC, id DESC);
CREATE INDEX results_history ON results (device_id, kernel, params, measured_at DESC);
CREATE INDEX results_compare ON results (kernel, params, model, measured_at DESC) WHERE valid;
CREATE INDEX results_by_run_kernel ON results (run_id, kernel);
-- V7's (issue 12): the few results measured on a throttling GPU, or possibly from L2. Made again here because the
-- ones V7 made went with results_unpartitioned.
CREATE INDEX results_throttled ON results (measured_at DESC) WHERE throttled_samples_dropped > 0 OR too_few_clean_samples;
CREATE INDEX results_cache_resident ON results (measured_at DESC) WHERE cache_residency = 'CACHE_RESIDENT';
