-- Issue 12/13: the verdicts, the regression check and the cohort check compare clocks from typed fields. V7 kept the
-- SM clock's range in columns but not the memory clock's, so a result's clocks had to be unpacked from result_json
-- (DEFLATE, then the whole result parsed) for every row those checks read: at fleet scale the cohort check reads the
-- newest five results of every device and kernel case. With the memory clock here too, rows stored from now on need
-- no unpacking; rows stored before keep NULL and are read from result_json as before (StoredClocks).
ALTER TABLE results ADD COLUMN mem_clock_min_mhz INTEGER;
ALTER TABLE results ADD COLUMN mem_clock_max_mhz INTEGER;
