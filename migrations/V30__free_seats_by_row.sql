-- Best available reads whole rows to find blocks. Through the layout index
-- a row costs every seat in it, sold or held, so in a nearly full house a
-- request read dozens of taken seats for each free one it could use. This
-- index holds only available seats, by row, so a row's read costs its free
-- seats. A claim adds nothing to it (the claimed row version is HELD); a
-- release adds one entry, as it already does to seats_available_by_rank.
-- Lapsed holds are found through seats_held_by_expiry, which reads only
-- the lapsed ones.
CREATE INDEX seats_available_by_row
    ON seats (event_id, section_id, row_index, position)
 WHERE status = 'AVAILABLE';
