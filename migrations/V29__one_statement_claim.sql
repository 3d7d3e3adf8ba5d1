-- Throughput, round three (issue 51): a buyer's pick of seats, and the
-- release of one, are each one statement, so a pick costs one round trip
-- to the database after the session's read. The rules are those the
-- claim kept as separate statements (src/db/holds/claim.rs), in the same
-- order: the request's limits, the event's key-share lock, the buyer's
-- hold (its lock, or a new one under the address's and key's caps), the
-- seats locked in id order with lazy expiry, the conditional claim, the
-- hold's size, and the request counted last, so the counters' row locks
-- are held only to the commit. Each step is its own statement in the
-- function, so each sees what committed while an earlier one waited for a
-- lock (READ COMMITTED takes a snapshot per statement).
--
-- Refusals that write nothing raise an error whose SQLSTATE (class 'SM')
-- the app maps to its answer; the statement's failure rolls back
-- everything it did. A claim refused because a seat is taken is answered
-- as a row instead, so the request is still counted in the same statement
-- (a refused request counts too) and the herd's losers cost one trip.
-- Such a refusal claims nothing, and a hold it opened is deleted again;
-- what it keeps besides the count is the buyer's lapsed hold closed as
-- EXPIRED, which any later claim would do first anyway.

-- The sale state of an event, the one definition the app's queries
-- (db::events::SALE_STATUS) and this function use. A one-expression SQL
-- function: the planner inlines it.
CREATE FUNCTION sale_status(e events) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN e.published_at IS NULL THEN 'draft'
                WHEN e.cancelled_at IS NOT NULL THEN 'cancelled'
                WHEN e.sales_closed_at IS NOT NULL THEN 'closed'
                WHEN e.starts_at <= now() THEN 'started'
                WHEN e.on_sale_at > now() THEN 'not_yet'
                ELSE 'on_sale' END
$$;

-- The start of the fixed window of `window_secs` that `at` falls in (the
-- rate limits' windows: src/db/rate_limits.rs lays them out the same way).
CREATE FUNCTION rate_window_start(at timestamptz, window_secs float8)
    RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
    SELECT to_timestamp(floor(extract(epoch FROM at)::float8 / window_secs) * window_secs)
$$;

-- Refuses a new hold when its client address (or API key) already has as
-- many live holds as allowed (0: no cap); a hold checked out and waiting
-- for its payment counts until its deadline. An advisory lock on the
-- address (or key) first, so concurrent requests can't all slip under the
-- cap together, then the count: two statements, so the count sees the
-- holds committed while the lock was awaited. Every path that opens a
-- buyer's hold calls it (the pick below, and db::holds::refuse_if_capped).
CREATE FUNCTION refuse_if_holds_capped(p_client_ip inet, p_api_key bigint,
                                       p_max_holds_per_ip integer, p_max_holds_per_key integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_live bigint;
    v_first_expiry bigint;
BEGIN
    IF p_client_ip IS NOT NULL AND p_max_holds_per_ip > 0 THEN
        PERFORM pg_advisory_xact_lock(hashtextextended(host(p_client_ip), 7));
        SELECT count(*), ceil(extract(epoch FROM min(h.expires_at) - now()))::bigint
          INTO v_live, v_first_expiry
          FROM holds h WHERE h.client_ip = p_client_ip
           AND h.state IN ('OPEN', 'PAYING') AND h.expires_at > now();
        IF v_live >= p_max_holds_per_ip THEN
            RAISE EXCEPTION 'live holds from the address at the cap' USING ERRCODE = 'SM43I',
                DETAIL = v_live || ',' || greatest(coalesce(v_first_expiry, 1), 1);
        END IF;
    END IF;
    IF p_api_key IS NOT NULL AND p_max_holds_per_key > 0 THEN
        PERFORM pg_advisory_xact_lock(hashtextextended('api_key:' || p_api_key, 7));
        SELECT count(*), ceil(extract(epoch FROM min(h.expires_at) - now()))::bigint
          INTO v_live, v_first_expiry
          FROM holds h WHERE h.api_key_id = p_api_key
           AND h.state IN ('OPEN', 'PAYING') AND h.expires_at > now();
        IF v_live >= p_max_holds_per_key THEN
            RAISE EXCEPTION 'live holds of the key at the cap' USING ERRCODE = 'SM43K',
                DETAIL = v_live || ',' || greatest(coalesce(v_first_expiry, 1), 1);
        END IF;
    END IF;
END
$$;

CREATE FUNCTION claim_seats_for_buyer(
    p_event_id bigint,
    p_buyer_id uuid,
    p_seat_ids bigint[],          -- sorted, distinct, not empty
    p_new_hold_id uuid,           -- the id of the hold, if one is opened
    p_ttl_secs float8,
    p_client_ip inet,
    p_api_key bigint,
    p_max_holds_per_ip integer,   -- 0: no cap
    p_max_holds_per_key integer,  -- 0: no cap
    p_counter_keys text[],        -- the request's per-minute counters (none: not counted)
    p_counter_maxes integer[],
    p_clock timestamptz,          -- a frozen clock for the counters' windows (tests), or NULL
    p_max_seats integer)
RETURNS TABLE (
    outcome text,                 -- 'held', 'taken' or 'waitlist_first'
    refused bigint[],
    reclaimed integer,
    hold_id uuid,
    hold_expires_at timestamptz,
    hold_state text,
    hold_extended boolean,
    hold_released_by_staff boolean,
    hold_locale text[],
    ga_area_ids bigint[],
    ga_quantities integer[],
    id bigint,
    section text,
    section_id bigint,
    row_label text,
    seat_label text,
    row_index integer,
    "position" integer,
    x real,
    y real,
    tier_code text,
    tier_name text,
    price_cents integer,
    effective_status text,
    held_by_viewer boolean,
    accessibility text[],
    view_note text,
    held_until timestamptz,
    holder uuid)
LANGUAGE plpgsql
-- `id = ANY($n)` made PostgreSQL plan each call afresh (issue 33).
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
DECLARE
    v_window timestamptz := rate_window_start(coalesce(p_clock, now()), 60);
    v_retry bigint := ceil(extract(epoch FROM rate_window_start(coalesce(p_clock, now()), 60)
                                   + interval '60 seconds' - coalesce(p_clock, now())));
    v_sale text;
    v_on_sale_at timestamptz;
    v_time_zone text;
    v_waitlist boolean;
    v_known integer;
    v_hold holds%ROWTYPE;
    v_opened boolean := false;
    v_locked bigint[];
    v_reclaimed integer;
    v_refused bigint[];
    v_held integer;
    v_bumped integer;
    v_ga_ids bigint[];
    v_ga_quantities integer[];
BEGIN
    IF coalesce(cardinality(p_seat_ids), 0) = 0 THEN
        RAISE EXCEPTION 'a pick names at least one seat' USING ERRCODE = '22023';
    END IF;
    -- The request's limits: one already spent is refused before any lock.
    IF cardinality(p_counter_keys) > 0 AND EXISTS (
        SELECT 1 FROM rate_limits r
          JOIN unnest(p_counter_keys, p_counter_maxes) AS w(key, max) ON r.key = w.key
         WHERE r.window_start = v_window AND r.hits >= w.max) THEN
        RAISE EXCEPTION 'hold requests over their limit' USING ERRCODE = 'SM429',
            DETAIL = greatest(v_retry, 1)::text;
    END IF;

    -- The event: key-share locked while its sales are open, read without a
    -- lock once they closed (a stream of refusals must not starve closing).
    SELECT sale_status(e), e.on_sale_at, e.time_zone,
           (NOT e.waitlist_paused
            AND EXISTS (SELECT 1 FROM waitlist_entries w
                         WHERE w.event_id = e.id AND w.status = 'waiting'
                           AND w.confirmed_at IS NOT NULL))
      INTO v_sale, v_on_sale_at, v_time_zone, v_waitlist
      FROM events e WHERE e.id = p_event_id AND e.sales_closed_at IS NULL
       FOR KEY SHARE;
    IF NOT FOUND THEN
        SELECT sale_status(e), e.on_sale_at, e.time_zone
          INTO v_sale, v_on_sale_at, v_time_zone
          FROM events e WHERE e.id = p_event_id;
    END IF;
    IF v_sale IS NULL OR v_sale = 'draft' THEN
        RAISE EXCEPTION 'no such event' USING ERRCODE = 'SM404';
    END IF;
    IF v_sale <> 'on_sale' THEN
        RAISE EXCEPTION 'event not on sale' USING ERRCODE = 'SM409',
            DETAIL = json_build_object('sale', v_sale, 'time_zone', v_time_zone,
                                       'on_sale_at_micros',
                                       (extract(epoch FROM v_on_sale_at) * 1000000)::bigint)::text;
    END IF;

    SELECT count(*) INTO v_known FROM seats s
     WHERE s.event_id = p_event_id AND s.id = ANY(p_seat_ids);
    IF v_known <> cardinality(p_seat_ids) THEN
        RAISE EXCEPTION 'seats not in the event' USING ERRCODE = 'SM4SE',
            DETAIL = (SELECT string_agg(x::text, ',' ORDER BY x) FROM unnest(p_seat_ids) x
                       WHERE NOT EXISTS (SELECT 1 FROM seats s
                                          WHERE s.event_id = p_event_id AND s.id = x));
    END IF;

    -- The buyer's hold: a lapsed one closed (so the one-open-hold index
    -- lets a new one in), the open one locked, or a new one opened.
    UPDATE holds h SET state = 'EXPIRED', closed_at = now()
     WHERE h.event_id = p_event_id AND h.buyer_id = p_buyer_id
       AND h.state = 'OPEN' AND h.expires_at <= now();
    SELECT * INTO v_hold FROM holds h
     WHERE h.event_id = p_event_id AND h.buyer_id = p_buyer_id
       AND h.state = 'OPEN' AND h.expires_at > now()
       FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM refuse_if_holds_capped(p_client_ip, p_api_key, p_max_holds_per_ip,
                                       p_max_holds_per_key);
        INSERT INTO holds AS h (id, event_id, buyer_id, expires_at, client_ip, api_key_id)
        VALUES (p_new_hold_id, p_event_id, p_buyer_id, now() + make_interval(secs => p_ttl_secs),
                p_client_ip, p_api_key)
        ON CONFLICT (event_id, buyer_id) WHERE state = 'OPEN' DO NOTHING
        RETURNING * INTO v_hold;
        IF FOUND THEN
            v_opened := true;
        ELSE
            -- The buyer's other request opened one first and has committed
            -- (the insert waited for it): lock that one.
            SELECT * INTO v_hold FROM holds h
             WHERE h.event_id = p_event_id AND h.buyer_id = p_buyer_id
               AND h.state = 'OPEN' AND h.expires_at > now()
               FOR UPDATE;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'no such event' USING ERRCODE = 'SM404';
            END IF;
        END IF;
    END IF;

    -- The free seats among those asked for, locked in id order: available,
    -- or held by a lapsed hold (lazy expiry), or already this hold's. A
    -- free seat the waitlist keeps is not the buyer's to take.
    SELECT array_agg(t.id ORDER BY t.id), count(*) FILTER (WHERE t.reclaimed)
      INTO v_locked, v_reclaimed
      FROM (SELECT s.id, (s.status = 'HELD' AND s.hold_id <> v_hold.id) AS reclaimed
              FROM seats s
             WHERE s.event_id = p_event_id AND s.id = ANY(p_seat_ids)
               AND (s.status = 'AVAILABLE'
                    OR (s.status = 'HELD' AND (s.held_until < now() OR s.hold_id = v_hold.id)))
               AND (NOT v_waitlist OR coalesce(s.hold_id = v_hold.id, false)
                    OR NOT waitlist_keeps(p_event_id, s.section_id, s.tier_id, s.accessibility))
             ORDER BY s.id
               FOR UPDATE) t;

    IF coalesce(cardinality(v_locked), 0) < cardinality(p_seat_ids) THEN
        -- Nothing is claimed. A hold opened for this claim goes with it.
        SELECT array_agg(x ORDER BY x) INTO v_refused FROM unnest(p_seat_ids) x
         WHERE NOT (x = ANY(coalesce(v_locked, '{}')));
        IF v_opened THEN
            DELETE FROM holds h WHERE h.id = v_hold.id;
        END IF;
        outcome := 'taken';
        IF v_waitlist AND EXISTS (
            SELECT 1 FROM seats s WHERE s.event_id = p_event_id AND s.id = ANY(v_refused)
               AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.held_until < now()))
               AND waitlist_keeps(p_event_id, s.section_id, s.tier_id, s.accessibility)) THEN
            outcome := 'waitlist_first';
        END IF;
        refused := v_refused;
    ELSE
        UPDATE seats s
           SET status = 'HELD', hold_id = v_hold.id, held_until = v_hold.expires_at,
               changed_xid = pg_current_xact_id()
         WHERE s.id = ANY(v_locked);

        SELECT array_agg(g.area_id ORDER BY g.area_id), array_agg(g.quantity ORDER BY g.area_id)
          INTO v_ga_ids, v_ga_quantities
          FROM ga_tickets g WHERE g.hold_id = v_hold.id AND g.order_id IS NULL;
        SELECT count(*) INTO v_held FROM seats s WHERE s.hold_id = v_hold.id;
        IF v_held + coalesce((SELECT sum(q) FROM unnest(v_ga_quantities) q), 0) > p_max_seats THEN
            RAISE EXCEPTION 'hold over its size' USING ERRCODE = 'SM4HL',
                DETAIL = p_max_seats::text;
        END IF;
        outcome := 'held';
    END IF;

    -- The request counts, whatever the answer; last, so the counters' row
    -- locks are held only to the commit. Each counter is bumped only while
    -- under its maximum, so concurrent requests can't slip past together.
    IF cardinality(p_counter_keys) > 0 THEN
        WITH want AS (SELECT w.key, w.max FROM unnest(p_counter_keys, p_counter_maxes) AS w(key, max)),
             at_max AS (SELECT 1 FROM rate_limits r JOIN want ON r.key = want.key
                         WHERE r.window_start = v_window AND r.hits >= want.max),
             bumped AS (
                 INSERT INTO rate_limits AS r (key, window_start, hits)
                 SELECT want.key, v_window, 1 FROM want WHERE NOT EXISTS (SELECT 1 FROM at_max)
                 ON CONFLICT (key, window_start) DO UPDATE SET hits = r.hits + 1
                  WHERE r.hits < (SELECT want.max FROM want WHERE want.key = r.key)
                 RETURNING r.key)
        SELECT count(*) INTO v_bumped FROM bumped;
        IF v_bumped < cardinality(p_counter_keys) THEN
            RAISE EXCEPTION 'hold requests over their limit' USING ERRCODE = 'SM429',
                DETAIL = greatest(v_retry, 1)::text;
        END IF;
    END IF;

    IF outcome <> 'held' THEN
        RETURN NEXT;
        RETURN;
    END IF;

    RETURN QUERY
        SELECT 'held'::text, NULL::bigint[], v_reclaimed, v_hold.id, v_hold.expires_at,
               v_hold.state, v_hold.extended,
               (v_hold.released_by_staff IS NOT NULL OR v_hold.released_by_key IS NOT NULL),
               (SELECT ARRAY[e.currency, e.time_zone, e.payment] FROM events e
                 WHERE e.id = p_event_id),
               v_ga_ids, v_ga_quantities,
               s.id, sec.name, s.section_id, s.row_label, s.seat_label, s.row_index, s.position,
               s.x, s.y, t.code, t.name, t.price_cents, 'HELD'::text, true, s.accessibility,
               s.view_note, s.held_until, v_hold.buyer_id
          FROM seats s
          JOIN sections sec ON sec.id = s.section_id
          JOIN price_tiers t ON t.id = s.tier_id
         WHERE s.hold_id = v_hold.id
         ORDER BY sec.sort_order, s.row_index, s.position;
END
$$;

-- A buyer's release of one seat of their hold: the hold locked, then the
-- seat put back on sale and the hold closed if that was all it had. The
-- lock is its own statement, so the count of what is left sees every claim
-- into the hold that committed while the lock was awaited. Answers
-- 'released', 'not_in_hold', 'no_hold' (not the buyer's, or none),
-- 'purchased' or 'paying'.
CREATE FUNCTION release_seat_of_buyer(p_hold_id uuid, p_buyer_id uuid, p_seat_id bigint)
RETURNS text LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_state text;
BEGIN
    SELECT h.state INTO v_state FROM holds h
     WHERE h.id = p_hold_id AND h.buyer_id = p_buyer_id FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 'no_hold';
    ELSIF v_state = 'PURCHASED' THEN
        RETURN 'purchased';
    ELSIF v_state = 'PAYING' THEN
        RETURN 'paying';
    END IF;
    UPDATE seats s SET status = 'AVAILABLE', hold_id = NULL, held_until = NULL,
           changed_xid = pg_current_xact_id()
     WHERE s.id = p_seat_id AND s.hold_id = p_hold_id;
    IF NOT FOUND THEN
        RETURN 'not_in_hold';
    END IF;
    UPDATE holds h SET state = 'RELEASED', closed_at = now()
     WHERE h.id = p_hold_id AND h.state = 'OPEN'
       AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.hold_id = p_hold_id)
       AND NOT EXISTS (SELECT 1 FROM ga_tickets g WHERE g.hold_id = p_hold_id AND g.order_id IS NULL);
    RETURN 'released';
END
$$;
