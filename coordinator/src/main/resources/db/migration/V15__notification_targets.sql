-- Where notices go (Slack-compatible webhooks, signed JSON webhooks, SMTP mailboxes), what each one wants to hear,
-- and every notice's delivery. Secrets (webhook URLs, HMAC keys, SMTP passwords) sit in their own column so that no
-- read meant for display ever selects them.
CREATE TABLE notification_targets (
  id            UUID PRIMARY KEY,
  name          VARCHAR(200) NOT NULL UNIQUE,
  kind          VARCHAR(16)  NOT NULL,
  settings_json TEXT         NOT NULL,
  secrets_json  TEXT         NOT NULL,
  filter_json   TEXT         NOT NULL,
  quiet_seconds BIGINT       NOT NULL CHECK (quiet_seconds >= 0),
  created_by    VARCHAR(200) NOT NULL,
  created_at    TIMESTAMP WITH TIME ZONE NOT NULL
);

-- One row per thing worth telling (a change point, a failed sweep, an agent gone): its key is stable, so whichever
-- coordinator claims it first (INSERT ... ON CONFLICT DO NOTHING) is the only one that queues deliveries for it.
CREATE TABLE notification_events (
  event_key    VARCHAR(600) PRIMARY KEY,
  quiet_key    VARCHAR(600) NOT NULL,
  kind         VARCHAR(32)  NOT NULL,
  severity     VARCHAR(16)  NOT NULL,
  title        TEXT         NOT NULL,
  message      TEXT         NOT NULL,
  link         TEXT,
  details_json TEXT         NOT NULL,
  occurred_at  TIMESTAMP WITH TIME ZONE NOT NULL,
  created_at   TIMESTAMP WITH TIME ZONE NOT NULL
);

-- One row per event and target: the delivery log. PENDING rows are the retry queue (due at next_attempt_at);
-- SUPPRESSED ones fell in the target's quiet period for the same series.
CREATE TABLE notification_deliveries (
  id              UUID PRIMARY KEY,
  target_id       UUID         NOT NULL REFERENCES notification_targets (id) ON DELETE CASCADE,
  event_key       VARCHAR(600) NOT NULL REFERENCES notification_events (event_key),
  quiet_key       VARCHAR(600) NOT NULL,
  status          VARCHAR(16)  NOT NULL,
  attempts        INTEGER      NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMP WITH TIME ZONE NOT NULL,
  last_code       INTEGER,
  last_reply      TEXT,
  last_error      TEXT,
  created_at      TIMESTAMP WITH TIME ZONE NOT NULL,
  updated_at      TIMESTAMP WITH TIME ZONE NOT NULL,
  UNIQUE (target_id, event_key)
);
CREATE INDEX notification_deliveries_due ON notification_deliveries (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX notification_deliveries_quiet ON notification_deliveries (target_id, quiet_key, created_at DESC);
CREATE INDEX notification_deliveries_newest ON notification_deliveries (updated_at DESC);

-- The settings every coordinator of the fleet shares, so a failover changes no link and no retry rhythm.
CREATE TABLE notification_settings (
  id                   BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (id),
  dashboard_url        TEXT,
  agent_offline_seconds BIGINT  NOT NULL,
  first_retry_millis   BIGINT  NOT NULL,
  max_attempts         INTEGER NOT NULL
);
INSERT INTO notification_settings (dashboard_url, agent_offline_seconds, first_retry_millis, max_attempts)
VALUES (NULL, 600, 30000, 6);
