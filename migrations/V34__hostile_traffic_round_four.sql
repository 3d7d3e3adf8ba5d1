-- Hostile traffic, round four (issue 65).

-- 1. Who joined a queue: the client's network (an address, an IPv6 /64)
-- or the API key, so joins are counted per client over a sliding minute
-- and an address that mints many identities pays for each with a proof
-- of work that grows with its count (domain::queue::join_bits).
ALTER TABLE queue_joins
    ADD COLUMN client_network inet,
    ADD COLUMN api_key_id bigint;
CREATE INDEX queue_joins_by_network ON queue_joins (event_id, client_network, joined_at)
    WHERE client_network IS NOT NULL;
CREATE INDEX queue_joins_by_key ON queue_joins (event_id, api_key_id, joined_at)
    WHERE api_key_id IS NOT NULL;

-- 2. An address's (or key's) admitted buyers together hold at most a share
-- of the house. The waiting room lifts the per-address cap on live holds
-- (a crowd behind one carrier address each gets a turn), so without this
-- one address could take the arena. Called last in every admitted claim,
-- in the claim's own transaction: the lock on the client first, then the
-- count (its own statement, so it sees every claim that committed while
-- the lock was awaited). Taken after the claim's seat locks and held only
-- to the commit; nothing takes a seat lock after it, so it closes no
-- cycle. A key's customers count against the key; a browser against its
-- network (holds keep the address, or its /64 for IPv6). 0: no share.
CREATE FUNCTION refuse_past_address_share(p_event_id bigint, p_client_ip inet,
                                          p_api_key bigint, p_max_seats integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_held bigint;
BEGIN
    IF coalesce(p_max_seats, 0) <= 0 OR (p_client_ip IS NULL AND p_api_key IS NULL) THEN
        RETURN;
    END IF;
    IF p_api_key IS NOT NULL THEN
        PERFORM pg_advisory_xact_lock(hashtextextended('share ' || p_event_id || ' key ' || p_api_key, 13));
        SELECT coalesce(sum(n), 0) INTO v_held FROM (
            SELECT (SELECT count(*) FROM seats s WHERE s.hold_id = h.id)
                   + coalesce((SELECT sum(g.quantity) FROM ga_tickets g
                                WHERE g.hold_id = h.id AND g.order_id IS NULL), 0) AS n
              FROM holds h
             WHERE h.event_id = p_event_id AND h.api_key_id = p_api_key
               AND h.state IN ('OPEN', 'PAYING') AND h.expires_at > now()) t;
    ELSE
        PERFORM pg_advisory_xact_lock(hashtextextended('share ' || p_event_id || ' ' || host(p_client_ip), 13));
        SELECT coalesce(sum(n), 0) INTO v_held FROM (
            SELECT (SELECT count(*) FROM seats s WHERE s.hold_id = h.id)
                   + coalesce((SELECT sum(g.quantity) FROM ga_tickets g
                                WHERE g.hold_id = h.id AND g.order_id IS NULL), 0) AS n
              FROM holds h
             WHERE h.event_id = p_event_id AND h.client_ip = p_client_ip
               AND h.state IN ('OPEN', 'PAYING') AND h.expires_at > now()) t;
    END IF;
    IF v_held > p_max_seats THEN
        RAISE EXCEPTION 'the client''s holds past its share of the house' USING ERRCODE = 'SM43S',
            DETAIL = p_max_seats::text;
    END IF;
END
$$;
CREATE INDEX holds_live_by_event_ip ON holds (event_id, client_ip)
    WHERE state IN ('OPEN', 'PAYING');

-- The pick of V29 with the share checked after it, in the same statement:
-- the claim's answer rows are passed on, and a share exceeded raises, which
-- rolls the whole claim back. A type names the pick's answer once.
CREATE TYPE seat_pick AS (
    outcome text, refused bigint[], reclaimed integer, hold_id uuid,
    hold_expires_at timestamptz, hold_state text, hold_extended boolean,
    hold_released_by_staff boolean, hold_locale text[], ga_area_ids bigint[],
    ga_quantities integer[], id bigint, section text, section_id bigint,
    row_label text, seat_label text, row_index integer, "position" integer,
    x real, y real, tier_code text, tier_name text, price_cents integer,
    effective_status text, held_by_viewer boolean, accessibility text[],
    view_note text, held_until timestamptz, holder uuid);

CREATE FUNCTION claim_seats_within_share(
    p_event_id bigint, p_buyer_id uuid, p_seat_ids bigint[], p_new_hold_id uuid,
    p_ttl_secs float8, p_client_ip inet, p_api_key bigint,
    p_max_holds_per_ip integer, p_max_holds_per_key integer,
    p_counter_keys text[], p_counter_maxes integer[], p_clock timestamptz,
    p_max_seats integer,
    p_share_seats integer)        -- 0: no share (the event has no queue)
RETURNS SETOF seat_pick
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_row seat_pick;
    v_held boolean := false;
BEGIN
    FOR v_row IN SELECT * FROM claim_seats_for_buyer(
            p_event_id, p_buyer_id, p_seat_ids, p_new_hold_id, p_ttl_secs, p_client_ip,
            p_api_key, p_max_holds_per_ip, p_max_holds_per_key, p_counter_keys,
            p_counter_maxes, p_clock, p_max_seats) LOOP
        v_held := v_row.outcome = 'held';
        RETURN NEXT v_row;
    END LOOP;
    IF v_held AND p_share_seats > 0 THEN
        PERFORM refuse_past_address_share(p_event_id, p_client_ip, p_api_key, p_share_seats);
    END IF;
END
$$;

-- 3. Money sums in bigint: ten tickets at the highest tier price with
-- tax added overflowed an int4 sum and broke the report for good. Tier
-- prices are capped as price types are (100,000,000 cents).
ALTER TABLE price_tiers ADD CONSTRAINT price_tiers_price_cap
    CHECK (price_cents BETWEEN 0 AND 100000000) NOT VALID;
