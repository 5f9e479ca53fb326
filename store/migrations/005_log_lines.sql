-- Trials' and tasks' log lines (store/log_archive.hpp): what a process
-- printed and the master's lines about it, kept so that a restarted master
-- still shows them. `key` is "trial:<id>" or "task:<uuid>", `id` the line's
-- number within it (1-based, never reused). Not part of the event log:
-- lines are written in batches beside it and dropped by log retention or
-- when their task is forgotten.
CREATE TABLE log_lines (
  key      text   NOT NULL CHECK (key <> ''),
  id       bigint NOT NULL CHECK (id > 0),
  agent_id text   NOT NULL,
  at_us    bigint NOT NULL,
  source   text   NOT NULL,
  line     text   NOT NULL,
  PRIMARY KEY (key, id)
);
