-- Best available under a herd: the first of the candidate blocks (best
-- first, `block_size` seats each, flattened) whose seats are all free and
-- unlocked, locked for this transaction; NULL if none is. Each block is
-- tried in a subtransaction, so a block only partly lockable (another
-- buyer has some of its seats) is let go at once instead of staying locked
-- until commit, where it would turn other buyers away from seats nobody
-- takes. Concurrent parties that computed the same candidates thus take
-- the first, second, third... block in one round trip each, and nothing
-- is locked that is not claimed. `unavailable`: the seats of the blocks
-- tried that another buyer had, for the caller to forget.
CREATE FUNCTION lock_first_free_block(
    seat_ids bigint[], block_size integer,
    OUT locked bigint[], OUT unavailable bigint[]
) LANGUAGE plpgsql AS $$
DECLARE
    block bigint[];
    got bigint[];
BEGIN
    unavailable := '{}';
    FOR i IN 0 .. cardinality(seat_ids) / block_size - 1 LOOP
        block := seat_ids[i * block_size + 1 : (i + 1) * block_size];
        BEGIN
            SELECT coalesce(array_agg(id), '{}') INTO got FROM (
                SELECT id FROM seats
                 WHERE id = ANY(block)
                   AND (status = 'AVAILABLE' OR (status = 'HELD' AND held_until < now()))
                 ORDER BY id
                   FOR UPDATE SKIP LOCKED) AS free;
            IF cardinality(got) = block_size THEN
                locked := block;
                RETURN;
            END IF;
            unavailable := unavailable || ARRAY(SELECT unnest(block) EXCEPT SELECT unnest(got));
            -- Undo this block's locks: the subtransaction rolls back.
            RAISE SQLSTATE 'SM001';
        EXCEPTION WHEN SQLSTATE 'SM001' THEN
            NULL;
        END;
    END LOOP;
END $$;
