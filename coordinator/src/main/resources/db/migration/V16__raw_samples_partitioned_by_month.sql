-- Raw samples are kept for a period the operator sets (BUSLOAD_SAMPLE_RETENTION, default 90 days); a result's
-- summary (medians, spreads, clocks, energy, everything the verdicts and change points read) is kept forever. The
-- samples therefore live in a table of their own, partitioned by month of measured_at like results (V8), so that
-- aging a month out is a DROP TABLE of that month's partition: no DELETE, no bloat, no rewrite of a kept table.
-- result_json no longer holds them either: ResultColumns stores the record with an empty samples list and the
-- readers put result_samples' back (ResultJson.withSamples).
--
-- A result whose samples are gone is told apart from one that never had any (a pushed CSV without sample
-- columns) by sample_retention.dropped_before: samples of results measured before it were aged out.

CREATE TABLE result_samples (
  result_id   UUID NOT NULL,
  measured_at TIMESTAMP WITH TIME ZONE NOT NULL,
  samples     DOUBLE PRECISION[] NOT NULL,
  PRIMARY KEY (result_id, measured_at)
) PARTITION BY RANGE (measured_at);

-- The month partition of result_samples that holds measured_at = at, made when missing; month bounds as in
-- results_partition_for (UTC midnights).
CREATE FUNCTION result_samples_partition_for(at TIMESTAMP WITH TIME ZONE) RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
  first TIMESTAMP := date_trunc('month', at AT TIME ZONE 'UTC');
  name  TEXT := 'result_samples_' || to_char(first, 'YYYY_MM');
BEGIN
  IF to_regclass(name) IS NULL THEN
    BEGIN
      EXECUTE format('CREATE TABLE %I PARTITION OF result_samples FOR VALUES FROM (%L) TO (%L)', name,
          (first AT TIME ZONE 'UTC'), ((first + INTERVAL '1 month') AT TIME ZONE 'UTC'));
    EXCEPTION WHEN duplicate_table THEN
      NULL; -- another coordinator made it meanwhile
    END;
  END IF;
  RETURN name;
END $$;

-- One row: results measured before dropped_before have no raw samples any more (NULL: none were ever dropped).
CREATE TABLE sample_retention (
  only_row       BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
  dropped_before TIMESTAMP WITH TIME ZONE
);
INSERT INTO sample_retention (only_row, dropped_before) VALUES (TRUE, NULL);

-- Stored results keep their samples, now in result_samples. Their result_json still holds a copy (rewriting every
-- stored row to take it out would be the table rewrite this design avoids); readers take result_samples' list
-- over it, so an aged-out result reads without samples either way.
SELECT result_samples_partition_for(m)
  FROM (SELECT DISTINCT date_trunc('month', measured_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS m
          FROM results) months;
INSERT INTO result_samples (result_id, measured_at, samples)
  SELECT id, measured_at, samples FROM results WHERE cardinality(samples) > 0;
-- Dropping a column is a change of the catalog only: no row is rewritten.
ALTER TABLE results DROP COLUMN samples;
