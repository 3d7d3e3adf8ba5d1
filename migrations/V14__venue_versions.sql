-- Versioned venues (issue 29). Saving a layout makes a new version; an
-- event keeps the version it was built from until staff move it, which is
-- refused while anything in it is sold or held.

CREATE TABLE venue_versions (
    venue_id     bigint NOT NULL REFERENCES venues,
    version      integer NOT NULL CHECK (version >= 1),
    layout       jsonb NOT NULL,
    seat_count   integer NOT NULL CHECK (seat_count >= 0),
    ga_capacity  integer NOT NULL CHECK (ga_capacity >= 0),
    saved_by     bigint REFERENCES staff,
    saved_by_key bigint REFERENCES api_keys,
    saved_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (venue_id, version)
);

-- venues.layout (and its counts) is the latest version's copy, so the
-- readers of the latest need no join; `version` is its number, and the
-- optimistic lock a save is judged by (`UPDATE … WHERE version = $seen`).
ALTER TABLE venues ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);

INSERT INTO venue_versions (venue_id, version, layout, seat_count, ga_capacity, saved_by, saved_at)
SELECT id, 1, layout, seat_count, ga_capacity, imported_by, imported_at FROM venues;

-- The latest copy is always a stored version (checked at commit: a save
-- bumps the venue and inserts its version in one transaction).
ALTER TABLE venues ADD CONSTRAINT venue_latest_is_a_version
    FOREIGN KEY (id, version) REFERENCES venue_versions (venue_id, version)
    DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE events ADD COLUMN venue_version integer;
UPDATE events SET venue_version = 1 WHERE venue_id IS NOT NULL;
ALTER TABLE events
    ADD CONSTRAINT event_venue_version_together
        CHECK ((venue_id IS NULL) = (venue_version IS NULL)),
    ADD CONSTRAINT event_built_from_a_version
        FOREIGN KEY (venue_id, venue_version) REFERENCES venue_versions (venue_id, version);

-- An aisle seat is a mark the designer paints, like the access marks.
ALTER TABLE seats DROP CONSTRAINT seats_accessibility_check;
ALTER TABLE seats ADD CONSTRAINT seats_accessibility_check
    CHECK (accessibility <@ ARRAY['wheelchair', 'companion', 'restricted_view', 'aisle']::text[]);

-- Labels for finding one's way on the map ("Bar", "Exit"): an event keeps
-- its venue's, as it keeps its stage: [{"text", "x", "y", "outline"?}].
ALTER TABLE events ADD COLUMN labels jsonb NOT NULL DEFAULT '[]'
    CHECK (jsonb_typeof(labels) = 'array' AND jsonb_array_length(labels) <= 200);
