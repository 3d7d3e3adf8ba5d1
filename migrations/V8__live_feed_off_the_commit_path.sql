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
-- decides what is new, so a transaction that took a lower version and
-- committed later is still found, exactly once; and because the cursor is
-- a snapshot, an instance that loses its connection for a while resumes
-- where it was and misses nothing.

DROP TRIGGER seats_notify ON seats;
DROP FUNCTION seats_notify();
DROP TRIGGER ga_areas_notify ON ga_areas;
DROP FUNCTION ga_areas_notify();

-- NULL: never changed since its event was created (nothing to tell anyone).
ALTER TABLE seats ADD COLUMN changed_xid xid8;
ALTER TABLE ga_areas ADD COLUMN changed_xid xid8;
CREATE INDEX seats_changed_xid ON seats (changed_xid) WHERE changed_xid IS NOT NULL;
CREATE INDEX ga_areas_changed_xid ON ga_areas (changed_xid) WHERE changed_xid IS NOT NULL;

CREATE OR REPLACE FUNCTION seats_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.version := nextval('seat_versions');
    NEW.changed_at := clock_timestamp();
    NEW.changed_xid := pg_current_xact_id();
    RETURN NEW;
END $$;

CREATE FUNCTION ga_areas_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.changed_xid := pg_current_xact_id();
    RETURN NEW;
END $$;

CREATE TRIGGER ga_areas_touch BEFORE UPDATE ON ga_areas FOR EACH ROW
    WHEN (OLD.held IS DISTINCT FROM NEW.held OR OLD.sold IS DISTINCT FROM NEW.sold)
    EXECUTE FUNCTION ga_areas_touch();
