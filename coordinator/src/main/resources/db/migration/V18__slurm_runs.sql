-- The Slurm partition a run is measured through: the coordinator submits a job to it for the run's node (the run's
-- agent) whenever that node has queued runs and no agent online. Null for a run that waits for a standing agent.
ALTER TABLE runs ADD COLUMN slurm_partition VARCHAR(100);
CREATE INDEX runs_queued_slurm ON runs (state, slurm_partition) WHERE slurm_partition IS NOT NULL;
