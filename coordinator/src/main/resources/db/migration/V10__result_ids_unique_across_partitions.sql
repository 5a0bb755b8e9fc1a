-- A result's id names one measurement, whatever its measured_at. The partitioned results table can only hold keys
-- that contain its partition key ((id, measured_at), V8), so on its own it would take the same id twice under two
-- times, each in its month. result_ids is not partitioned and holds each id once, with the measured_at it was
-- stored under: ResultStore inserts here first, in the same statement and transaction as the results row, and
-- stores a result only when its id was new here. An id already here with another measured_at is then found by
-- the caller's comparison and refused, never stored a second time.
CREATE TABLE result_ids (
  id UUID PRIMARY KEY,
  measured_at TIMESTAMP WITH TIME ZONE NOT NULL
);

-- A store may already hold one id under several times. The copy stored first is the one its sender was acked for
-- and every view has shown since; the later copies are removed, with their counters' rows left to the first (the
-- counters are keyed by id alone).
INSERT INTO result_ids (id, measured_at)
  SELECT DISTINCT ON (id) id, measured_at FROM results ORDER BY id, stored_at, measured_at;

DO $$
DECLARE
  removed BIGINT;
BEGIN
  DELETE FROM results r USING result_ids i WHERE r.id = i.id AND r.measured_at <> i.measured_at;
  GET DIAGNOSTICS removed = ROW_COUNT;
  IF removed > 0 THEN
    RAISE NOTICE 'result_ids: % later cop(ies) of results stored under another measured_at removed', removed;
  END IF;
END $$;
