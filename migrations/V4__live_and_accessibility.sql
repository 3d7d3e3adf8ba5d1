-- Live seat maps. Every change to a seat's sale state bumps its version
-- (one sequence for all seats) and stamps the time, so a page that
-- reconnects can ask for what changed since the last version it saw. A
-- statement-level trigger sends one NOTIFY per event per statement, in the
-- changing transaction: it is delivered at commit, or not at all, to
-- every app instance listening.

CREATE SEQUENCE seat_versions;

-- A seat that has never changed has version 0 and the epoch as its time,
-- so creating an event's seats is not itself a change to send anyone.
ALTER TABLE seats
    ADD COLUMN version    bigint NOT NULL DEFAULT 0,
    ADD COLUMN changed_at timestamptz NOT NULL DEFAULT 'epoch',
    -- Accessible-seat flags from the layout.
    ADD COLUMN accessibility text[] NOT NULL DEFAULT '{}'
        CHECK (accessibility <@ ARRAY['wheelchair', 'companion', 'restricted_view']::text[]);
CREATE INDEX seats_changes ON seats (event_id, version);
CREATE INDEX seats_changed_at ON seats (event_id, changed_at);

CREATE FUNCTION seats_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.version := nextval('seat_versions');
    NEW.changed_at := clock_timestamp();
    RETURN NEW;
END $$;

CREATE TRIGGER seats_touch BEFORE UPDATE ON seats FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status
          OR OLD.hold_id IS DISTINCT FROM NEW.hold_id
          OR OLD.held_until IS DISTINCT FROM NEW.held_until
          OR OLD.order_id IS DISTINCT FROM NEW.order_id)
    EXECUTE FUNCTION seats_touch();

-- Payload: {"event_id": 1, "seat_ids": [...]}; seat_ids is null when more
-- than 400 changed at once (NOTIFY payloads stop at 8000 bytes), and
-- listeners then catch up by version instead.
CREATE FUNCTION seats_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('seat_changes', json_build_object(
                'event_id', event_id,
                'seat_ids', CASE WHEN count(*) <= 400 THEN array_agg(id ORDER BY id) END)::text)
       FROM changed
      GROUP BY event_id;
    RETURN NULL;
END $$;

CREATE TRIGGER seats_notify AFTER UPDATE ON seats
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION seats_notify();

-- "Need more time?": one extension per hold.
ALTER TABLE holds ADD COLUMN extended boolean NOT NULL DEFAULT false;
