-- Secrets the master generates on its first start and keeps across restarts
-- (the agent token when master.yaml sets none, the key of trials' session
-- tokens). Not in the event log, which every admin can read; the rows are
-- written once and never changed.
CREATE TABLE cluster_secrets (
  name       text        PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
  value      text        NOT NULL CHECK (length(value) BETWEEN 16 AND 512),
  created_at timestamptz NOT NULL DEFAULT now()
);
