-- Issue 11: results pushed from hosts that cannot join the cluster (./busload push FILE...). Every push the
-- coordinator took is a row: which token pushed what file from which host, how many results it held and how many
-- of them were new. Results keep their own ids (an upsert by id, as from agents); result_json holds each pushed
-- result's origin (the JSON every view serves), and pushed_results lets SQL find pushed results without parsing it.
CREATE TABLE pushes (
  id             UUID PRIMARY KEY,
  token_name     VARCHAR(200)  NOT NULL,
  source_host    VARCHAR(255),
  source_file    VARCHAR(1000),
  remote_address VARCHAR(255),
  format         VARCHAR(8)    NOT NULL,
  results        INTEGER       NOT NULL,
  stored         INTEGER       NOT NULL,
  pushed_at      TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX pushes_newest ON pushes (pushed_at DESC, id DESC);

-- The results a push stored first; a result that was present already keeps the origin it had.
CREATE TABLE pushed_results (
  result_id UUID PRIMARY KEY REFERENCES results (id) ON DELETE CASCADE,
  push_id   UUID NOT NULL REFERENCES pushes (id)
);
CREATE INDEX pushed_results_by_push ON pushed_results (push_id);

-- The sweep a push made, so pushed results have sweeps and runs as fleet results do (Run detail, Live).
ALTER TABLE sweeps ADD COLUMN push_id UUID REFERENCES pushes (id);
