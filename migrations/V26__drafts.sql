-- Drafts (issue 48): a new event is seen only by staff until they publish
-- it; published, it is listed and sells from its on-sale time. Events made
-- before drafts existed were on sale at once, so they count as published
-- from when they were made.
ALTER TABLE events ADD COLUMN published_at timestamptz;
UPDATE events SET published_at = created_at;
