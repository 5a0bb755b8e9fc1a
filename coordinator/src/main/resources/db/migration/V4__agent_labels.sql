-- Issue 4 (schedule targets by host label): the labels an agent's hello declares for its host (BUSLOAD_LABELS on
-- the agent: lab-east, rack=a), replaced by each hello. A schedule whose target is {kind: label, value: v} runs on
-- every device of every agent whose labels hold v. Agents stored before labels existed have none.
ALTER TABLE agents ADD COLUMN labels TEXT[] NOT NULL DEFAULT '{}';
