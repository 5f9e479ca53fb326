-- The event log: one row per event, positions assigned by the single writer
-- (contiguous from 1), one version sequence per stream.
CREATE TABLE events (
  position       bigint      PRIMARY KEY CHECK (position > 0),
  stream_id      text        NOT NULL CHECK (stream_id <> ''),
  stream_version bigint      NOT NULL CHECK (stream_version > 0),
  type           text        NOT NULL CHECK (type <> ''),
  schema_version integer     NOT NULL CHECK (schema_version > 0),
  payload        jsonb       NOT NULL,
  recorded_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT events_stream_version_unique UNIQUE (stream_id, stream_version)
);

-- Events are facts: never changed, never deleted.
CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the event log is append-only (% refused)', TG_OP;
END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();

-- Serialized states, each reflecting every event up to its position.
CREATE TABLE snapshots (
  position       bigint      PRIMARY KEY,
  schema_version integer     NOT NULL,
  state          text        NOT NULL,
  checksum       text        NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);

-- Who holds the writer lock (the advisory lock itself is the authority;
-- this row only names the holder for people and for a second process).
CREATE TABLE log_writer (
  id    boolean     PRIMARY KEY DEFAULT true CHECK (id),
  host  text        NOT NULL,
  pid   bigint      NOT NULL,
  since timestamptz NOT NULL DEFAULT now()
);
