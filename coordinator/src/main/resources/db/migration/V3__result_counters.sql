-- Issue 5: the hardware counters of profiled results (KernelResult.counters: ncu's sectors per request and DRAM
-- bytes beside the kernel's model), one row per profiled result, written in the transaction that stores the
-- result. result_json holds them too (the REST API returns each result as received); these columns let SQL ask
-- which kernels measure away from their model without parsing JSON. A figure ncu did not report is NULL.
CREATE TABLE result_counters (
  result_id                       UUID PRIMARY KEY REFERENCES results (id) ON DELETE CASCADE,
  load_sectors_per_request        DOUBLE PRECISION,
  model_load_sectors_per_request  DOUBLE PRECISION,
  store_sectors_per_request       DOUBLE PRECISION,
  model_store_sectors_per_request DOUBLE PRECISION,
  dram_bytes_read                 DOUBLE PRECISION,
  model_dram_bytes_read           DOUBLE PRECISION,
  dram_bytes_written              DOUBLE PRECISION,
  model_dram_bytes_written        DOUBLE PRECISION,
  flagged                         BOOLEAN NOT NULL,
  flags                           TEXT[]  NOT NULL,
  kernels                         TEXT[]  NOT NULL,
  method                          TEXT
);
-- Flagged rows are the ones worth finding; few, so a partial index stays small.
CREATE INDEX result_counters_flagged ON result_counters (result_id) WHERE flagged;
