-- Each task's context directory (`det cmd run -c DIR`, `--include`), as the
-- gzipped tar det-agent downloads (base64 text, as
-- GET /api/v1/tasks/{id}/context_directory answers it). Written once when
-- the task is launched, before its task_launched event; never changed.
CREATE TABLE task_contexts (
  task_id    text        PRIMARY KEY CHECK (task_id <> ''),
  tgz_b64    text        NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
