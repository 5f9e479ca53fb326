-- Each experiment's model definition, as the gzipped tar the agents download
-- (base64 text, as GET /api/v1/experiments/{id}/model_def answers it).
-- Written once when the experiment is submitted, never changed.
CREATE TABLE model_definitions (
  experiment_id bigint      PRIMARY KEY CHECK (experiment_id > 0),
  tgz_b64       text        NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
