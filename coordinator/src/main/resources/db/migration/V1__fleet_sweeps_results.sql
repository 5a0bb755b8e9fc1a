-- Issue 2: the coordinator's store. Kept to SQL that H2 (PostgreSQL mode) and PostgreSQL both accept,
-- because PostgreSQL becomes the production store in a later issue.

CREATE TABLE agents (
  id            VARCHAR(200) PRIMARY KEY,
  host          VARCHAR(255) NOT NULL,
  agent_version VARCHAR(100) NOT NULL,
  fatbin_hash   VARCHAR(128),
  started_at    TIMESTAMP WITH TIME ZONE,
  last_seen     TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE devices (
  id          VARCHAR(255) PRIMARY KEY,
  agent_id    VARCHAR(200) NOT NULL REFERENCES agents (id),
  fingerprint VARCHAR(64)  NOT NULL,
  kind        VARCHAR(16)  NOT NULL,
  name        VARCHAR(255) NOT NULL,
  info_json   TEXT         NOT NULL,
  last_seen   TIMESTAMP WITH TIME ZONE NOT NULL
);

CREATE TABLE sweeps (
  id           VARCHAR(64)  PRIMARY KEY,
  suite        VARCHAR(100) NOT NULL,
  options_json TEXT         NOT NULL,
  created_at   TIMESTAMP WITH TIME ZONE NOT NULL
);

-- One run per target device; position keeps the order the devices were asked for.
CREATE TABLE runs (
  id         VARCHAR(64)  PRIMARY KEY,
  sweep_id   VARCHAR(64)  NOT NULL REFERENCES sweeps (id),
  position   INTEGER      NOT NULL,
  device_id  VARCHAR(255) NOT NULL,
  agent_id   VARCHAR(200) NOT NULL,
  state      VARCHAR(16)  NOT NULL,
  completed  INTEGER      NOT NULL,
  total      INTEGER      NOT NULL,
  message    TEXT,
  created_at TIMESTAMP WITH TIME ZONE NOT NULL,
  updated_at TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX runs_by_device_state ON runs (device_id, state, created_at);
CREATE INDEX runs_by_sweep ON runs (sweep_id, position);

-- No foreign keys to runs or devices: a result measured by the CLI, or for a run this store never saw,
-- is still a measurement and must not be refused. result_json is the whole record as received.
CREATE TABLE results (
  id                  UUID PRIMARY KEY,
  sweep_id            VARCHAR(64),
  run_id              VARCHAR(64),
  agent_id            VARCHAR(200),
  device_id           VARCHAR(255) NOT NULL,
  fingerprint         VARCHAR(64)  NOT NULL,
  suite               VARCHAR(100),
  kernel              VARCHAR(200) NOT NULL,
  params              TEXT         NOT NULL,
  valid               BOOLEAN      NOT NULL,
  median_seconds      DOUBLE PRECISION NOT NULL,
  min_seconds         DOUBLE PRECISION NOT NULL,
  max_seconds         DOUBLE PRECISION NOT NULL,
  relative_spread     DOUBLE PRECISION NOT NULL,
  launches_per_sample INTEGER      NOT NULL,
  bytes               BIGINT       NOT NULL,
  bandwidth           DOUBLE PRECISION,
  measured_at         TIMESTAMP WITH TIME ZONE NOT NULL,
  stored_at           TIMESTAMP WITH TIME ZONE NOT NULL,
  result_json         TEXT         NOT NULL
);
CREATE INDEX results_newest ON results (measured_at, id);
CREATE INDEX results_by_sweep ON results (sweep_id);
CREATE INDEX results_by_device ON results (device_id);
CREATE INDEX results_by_kernel ON results (kernel);

CREATE TABLE samples (
  result_id UUID    NOT NULL REFERENCES results (id),
  position  INTEGER NOT NULL,
  seconds   DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (result_id, position)
);
