-- The REST API's bearer tokens. Only the SHA-256 of a token is kept: whoever reads the database (a backup, a
-- replica) learns no token. A token holds scopes (read, push, sweep, admin; admin implies the others), may expire,
-- and is revoked by setting revoked_at: the row stays, so a name once revoked is never brought back by the import of
-- a tokens file at start. Every coordinator of the store reads this table every few seconds, so a revocation takes
-- effect on all of them without a restart.
CREATE TABLE api_tokens (
  name        VARCHAR(200) PRIMARY KEY,
  sha256      BYTEA        NOT NULL UNIQUE CHECK (length(sha256) = 32),
  scopes      TEXT[]       NOT NULL CHECK (cardinality(scopes) > 0
                                           AND scopes <@ ARRAY['read', 'push', 'sweep', 'admin']::TEXT[]),
  created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
  created_by  VARCHAR(200) NOT NULL,
  expires_at  TIMESTAMP WITH TIME ZONE,
  revoked_at  TIMESTAMP WITH TIME ZONE
);
