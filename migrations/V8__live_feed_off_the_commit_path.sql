-- The live feed no longer NOTIFYs from the changing transaction.
--
-- PostgreSQL serialises the commits of every transaction that has called
-- NOTIFY (one database-wide lock, held from queueing the notification to
-- the end of the commit's WAL flush), so every claim, release and
-- purchase committed one at a time: about one change per fsync, whatever
-- the cores or the app instances.
--
-- Instead each changed row records the transaction that changed it
-- (64-bit, so it never wraps), and every app instance polls: "rows whose
-- transaction is visible in my snapshot now but was not in my last one"
-- (see db::live). Commit order, not the order versions were handed out,
-- decides what is new, so a transaction that changed a seat early and
-- committed late is still found, exactly once; and because the cursor is
-- a snapshot, an instance that loses its connection for a while resumes
-- where it was and misses nothing. Pages' cursors are snapshots too, so
-- the version sequence, the change times and their slack go.

DROP TRIGGER seats_notify ON seats;
DROP FUNCTION seats_notify();
DROP TRIGGER ga_areas_notify ON ga_areas;
DROP FUNCTION ga_areas_notify();
DROP TRIGGER seats_touch ON seats;
DROP FUNCTION seats_touch();
DROP INDEX seats_changes;
DROP INDEX seats_changed_at;
ALTER TABLE seats DROP COLUMN version, DROP COLUMN changed_at;
DROP SEQUENCE seat_versions;

-- NULL: never changed since its event was created (nothing to tell anyone).
ALTER TABLE seats ADD COLUMN changed_xid xid8;
ALTER TABLE ga_areas ADD COLUMN changed_xid xid8;
-- Every event's changes, for the instances' polls; one event's, for a
-- page catching up.
CREATE INDEX seats_changed_xid ON seats (changed_xid) WHERE changed_xid IS NOT NULL;
CREATE INDEX seats_changed_xid_by_event ON seats (event_id, changed_xid)
    WHERE changed_xid IS NOT NULL;
CREATE INDEX ga_areas_changed_xid ON ga_areas (changed_xid) WHERE changed_xid IS NOT NULL;

CREATE FUNCTION stamp_changed_xid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.changed_xid := pg_current_xact_id();
    RETURN NEW;
END $$;

-- The hot statements (claim, release, sell) stamp the row themselves,
-- which costs next to nothing; this trigger, a PL/pgSQL call per row,
-- stamps every other change, so none is ever missed.
CREATE TRIGGER seats_stamp BEFORE UPDATE ON seats FOR EACH ROW
    WHEN ((OLD.status IS DISTINCT FROM NEW.status
           OR OLD.hold_id IS DISTINCT FROM NEW.hold_id
           OR OLD.held_until IS DISTINCT FROM NEW.held_until
           OR OLD.order_id IS DISTINCT FROM NEW.order_id)
          AND OLD.changed_xid IS NOT DISTINCT FROM NEW.changed_xid)
    EXECUTE FUNCTION stamp_changed_xid();

CREATE TRIGGER ga_areas_stamp BEFORE UPDATE ON ga_areas FOR EACH ROW
    WHEN (OLD.held IS DISTINCT FROM NEW.held OR OLD.sold IS DISTINCT FROM NEW.sold)
    EXECUTE FUNCTION stamp_changed_xid();
