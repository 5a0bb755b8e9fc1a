-- What each case drew (KernelResult.energy): the GPU's energy counter over a window of the case's launches after
-- its samples. result_json holds it too (the REST API serves each result as received); these columns let SQL rank and
-- compare results by joules per useful byte and bandwidth per watt without unpacking JSON. NULL where the energy was
-- not read (no NVML or no counter, the CPU backend, a case not measured) and in every row stored before: a reading
-- that was not taken is absent, never 0.
ALTER TABLE results ADD COLUMN energy_joules         DOUBLE PRECISION;
ALTER TABLE results ADD COLUMN energy_average_watts  DOUBLE PRECISION;
ALTER TABLE results ADD COLUMN energy_idle_watts     DOUBLE PRECISION;
ALTER TABLE results ADD COLUMN energy_window_seconds DOUBLE PRECISION;
ALTER TABLE results ADD COLUMN energy_launches       BIGINT;
ALTER TABLE results ADD COLUMN energy_counter_steps  INTEGER;
