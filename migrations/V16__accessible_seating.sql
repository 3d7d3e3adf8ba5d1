-- Accessible seating (issue 31).
--
-- Seat attributes stay a closed set, so the map's filters, the list view's
-- words and every translation stay whole. Wheelchair and companion are the
-- two that best available holds back; the rest are facts people filter on.
ALTER TABLE seats DROP CONSTRAINT seats_accessibility_check;
ALTER TABLE seats ADD CONSTRAINT seats_accessibility_check
    CHECK (accessibility <@ ARRAY['wheelchair', 'companion', 'restricted_view', 'aisle',
                                  'step_free', 'hearing_loop', 'lift_up_armrest',
                                  'extra_legroom']::text[]);

-- Why a restricted-view seat's view is restricted ("Pillar"), as the
-- layout gives it; only on such a seat.
ALTER TABLE seats ADD COLUMN view_note text
    CHECK (view_note IS NULL
           OR (char_length(view_note) BETWEEN 1 AND 120
               AND 'restricted_view' = ANY (accessibility)));

-- A wheelchair party's search bounds a row's blocks by its spaces' ranks
-- alone, which holds only if no seat ranks below 0 (venues never give one).
ALTER TABLE seats ADD CONSTRAINT seats_rank_not_negative CHECK (rank >= 0);

-- When held-back spaces (wheelchair and companion) join general best
-- available: `accessible_release_secs` before the start (NULL: never by
-- time). Staff may decide by hand instead: 'released' or 'held' win over
-- the time until set back to 'auto'.
ALTER TABLE events
    ADD COLUMN accessible_release_secs integer
        CHECK (accessible_release_secs BETWEEN 0 AND 31536000),
    ADD COLUMN accessible_seats text NOT NULL DEFAULT 'auto'
        CHECK (accessible_seats IN ('auto', 'released', 'held'));

-- Events that exist already keep selling as they did (general best
-- available could give these seats): staff may hold them back from here on.
UPDATE events SET accessible_seats = 'released';

-- Judged lazily, like expiry: every search asks this of now(), so the
-- release needs no job and can't be missed.
CREATE FUNCTION accessible_held_back(mode text, release_secs integer, starts_at timestamptz)
    RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT CASE mode
               WHEN 'released' THEN false
               WHEN 'held' THEN true
               ELSE release_secs IS NULL
                    OR now() < starts_at - make_interval(secs => release_secs)
           END
$$;

-- A wheelchair party's search walks the spaces in rank order; they are
-- few, and this keeps that walk from reading every free seat.
CREATE INDEX seats_wheelchair_by_rank ON seats (event_id, rank, id)
    WHERE 'wheelchair' = ANY (accessibility);
