-- Best available walks free seats in rank order. These partial indexes hold
-- only free (or possibly free) seats, so that walk costs the same whether
-- the venue is empty or 95% sold: sold and blocked seats are not in them.
CREATE INDEX seats_available_by_rank ON seats (event_id, rank, id) WHERE status = 'AVAILABLE';
-- Lazy expiry: held seats whose hold has lapsed are free too. They are found
-- by expiry time, so only the lapsed ones are read, not every held seat.
CREATE INDEX seats_held_by_expiry ON seats (event_id, held_until) WHERE status = 'HELD';
