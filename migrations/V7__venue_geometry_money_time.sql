-- Venue geometry: seats stand where they are in the venue (x, y is now the
-- seat's centre in one coordinate space for the whole venue), sections and
-- general-admission areas have outlines, the event has a stage. Events also
-- get their currency and the venue's time zone.

-- Outlines are polygons flattened as x0, y0, x1, y1, …
ALTER TABLE sections
    ADD COLUMN outline real[] CHECK (outline IS NULL OR cardinality(outline) BETWEEN 6 AND 2000);
ALTER TABLE ga_areas
    ADD COLUMN outline real[] CHECK (outline IS NULL OR cardinality(outline) BETWEEN 6 AND 2000);
ALTER TABLE events
    ADD COLUMN stage real[] CHECK (stage IS NULL OR cardinality(stage) BETWEEN 6 AND 2000),
    ADD COLUMN currency text NOT NULL DEFAULT 'EUR' CHECK (currency ~ '^[A-Z]{3}$'),
    ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC' CHECK (length(time_zone) BETWEEN 1 AND 64);

-- Events made before this kept each section's seats in the section's own
-- coordinates, and the page stacked the sections. Stack them here instead,
-- as the page did: each section below the one before, centred on the
-- widest, its seat centres half a seat in from its old corner.
WITH extents AS (
    SELECT s.event_id, s.section_id, sec.sort_order,
           max(s.x) + 30 AS width, max(s.y) + 30 AS height
      FROM seats s JOIN sections sec ON sec.id = s.section_id
     GROUP BY s.event_id, s.section_id, sec.sort_order
), placed AS (
    SELECT section_id,
           (max(width) OVER (PARTITION BY event_id) - width) / 2 AS dx,
           coalesce(sum(height + 90) OVER (PARTITION BY event_id ORDER BY sort_order
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) + 120 AS dy
      FROM extents
)
UPDATE seats s
   SET x = s.x + p.dx + 15, y = s.y + p.dy + 15
  FROM placed p
 WHERE p.section_id = s.section_id;
