-- Hostile traffic, round three.

-- Every Checkout Session an order made, with its currency: a payment is
-- settled only through one of them, in that currency (a signed event
-- naming our order but another session is refunded, never settled).
CREATE TABLE stripe_checkout_sessions (
    id         text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 255),
    order_id   uuid NOT NULL REFERENCES orders,
    currency   text NOT NULL CHECK (currency ~ '^[a-z]{3}$'),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stripe_checkout_sessions_by_order ON stripe_checkout_sessions (order_id);
INSERT INTO stripe_checkout_sessions (id, order_id, currency)
SELECT o.stripe_session_id, o.id, lower(e.currency)
  FROM orders o JOIN events e ON e.id = o.event_id
 WHERE o.stripe_session_id IS NOT NULL;

-- A staff key has a role from the same ladder as staff accounts, and is
-- judged by it on every route as a login is. Keys made before roles were
-- box-office keys, and stay so.
ALTER TABLE api_keys ADD COLUMN role text
    CHECK (role IN ('door', 'box_office', 'manager', 'admin'));
UPDATE api_keys SET role = 'box_office' WHERE scope = 'box-office';
ALTER TABLE api_keys ADD CONSTRAINT api_keys_staff_keys_have_a_role
    CHECK ((scope = 'box-office') = (role IS NOT NULL));

-- Door devices are named by the server: the door page asks for an id
-- once and keeps it; a batch names an id issued to its own caller, so no
-- account can speak as another's device.
CREATE TABLE door_devices (
    id         text PRIMARY KEY CHECK (id ~ '^dv_[a-z2-7]{26}$'),
    staff_id   bigint REFERENCES staff,
    api_key_id bigint REFERENCES api_keys,
    issued_at  timestamptz NOT NULL DEFAULT now(),
    CHECK ((staff_id IS NULL) <> (api_key_id IS NULL))
);

-- An offline scan timed far from its ticket's life (before it could have
-- been sold, or in the future) admits nothing and is recorded.
ALTER TABLE door_conflicts DROP CONSTRAINT door_conflicts_kind_check;
ALTER TABLE door_conflicts ADD CONSTRAINT door_conflicts_kind_check
    CHECK (kind IN ('admitted_twice', 'refunded', 'out_of_window'));

-- The waitlist: each place says who asked for it (the client's address,
-- an IPv6 /64 as one, or the API key), so one client waits at most a few
-- times per event; and a place gets offers only once the address it gave
-- is confirmed from the link in its mail. Places taken before this waited
-- confirmed.
ALTER TABLE waitlist_entries ADD COLUMN client_network inet;
ALTER TABLE waitlist_entries ADD COLUMN api_key_id bigint REFERENCES api_keys;
ALTER TABLE waitlist_entries ADD COLUMN confirmed_at timestamptz;
UPDATE waitlist_entries SET confirmed_at = joined_at;
CREATE INDEX waitlist_entries_live_by_network ON waitlist_entries (event_id, client_network)
    WHERE status IN ('waiting', 'offered');
CREATE INDEX waitlist_entries_live_by_key ON waitlist_entries (event_id, api_key_id)
    WHERE status IN ('waiting', 'offered') AND api_key_id IS NOT NULL;
-- What every buyer claim probes is now the confirmed parties waiting.
DROP INDEX waitlist_entries_waiting;
CREATE INDEX waitlist_entries_waiting ON waitlist_entries (event_id, joined_seq)
    WHERE status = 'waiting' AND confirmed_at IS NOT NULL;

-- Only a confirmed party keeps free seats from the general sale: a flood
-- of made-up addresses keeps nothing.
CREATE OR REPLACE FUNCTION waitlist_keeps(event_id bigint, section_id bigint, tier_id bigint,
                                          accessibility text[])
    RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT NOT accessibility && ARRAY['wheelchair', 'companion']
       AND EXISTS (SELECT 1 FROM waitlist_entries w JOIN events e ON e.id = w.event_id
                    WHERE w.event_id = waitlist_keeps.event_id AND w.status = 'waiting'
                      AND w.confirmed_at IS NOT NULL
                      AND NOT e.waitlist_paused
                      AND (w.section_id IS NULL OR w.section_id = waitlist_keeps.section_id)
                      AND (w.tier_id IS NULL OR w.tier_id = waitlist_keeps.tier_id)
                      AND (w.max_price_cents IS NULL
                           OR w.max_price_cents >= (SELECT t.price_cents FROM price_tiers t
                                                     WHERE t.id = waitlist_keeps.tier_id)))
$$;

-- The currency of the Checkout Session `session` if the order made it:
-- one it remembers, or, made before sessions were remembered, the one on
-- the order itself. A function, so the order's lock statement stays short
-- enough for pg_stat_activity to show whole.
CREATE FUNCTION order_session_currency(order_id uuid, event_id bigint, order_session text,
                                       session text)
    RETURNS text LANGUAGE sql STABLE AS $$
    SELECT coalesce(
        (SELECT c.currency FROM stripe_checkout_sessions c
          WHERE c.id = order_session_currency.session
            AND c.order_id = order_session_currency.order_id),
        (SELECT lower(e.currency) FROM events e
          WHERE e.id = order_session_currency.event_id
            AND order_session_currency.order_session = order_session_currency.session))
$$;
