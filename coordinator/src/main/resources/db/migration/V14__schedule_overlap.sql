-- A schedule fires only when the sweep of its previous fire has finished, unless it allows overlap: a fire that
-- finds that sweep still running is recorded with why, and makes no sweep.
ALTER TABLE schedules ADD COLUMN allow_overlap BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX sweeps_by_schedule ON sweeps (schedule_id, created_at) WHERE schedule_id IS NOT NULL;
