-- A fair waitlist for parties. While an event has parties waiting (and
-- staff haven't paused it), a free seat any waiting party would take is
-- the waitlist's: a general claim on it is refused (409 waitlist_first),
-- judged in the claim's own statement. A worker on every instance offers
-- freed seats to the waiting parties in the order they joined, as a hold
-- for the party with an offer window.

ALTER TABLE events ADD COLUMN waitlist_paused boolean NOT NULL DEFAULT false;

CREATE TABLE waitlist_entries (
    id              uuid PRIMARY KEY,
    event_id        bigint NOT NULL REFERENCES events,
    -- Join order: the queue's order, and each party's place.
    joined_seq      bigint GENERATED ALWAYS AS IDENTITY,
    joined_at       timestamptz NOT NULL DEFAULT now(),
    -- The session buyer (or API key customer) who joined: they may leave,
    -- and an offer's hold is theirs.
    buyer_id        uuid NOT NULL,
    party_size      integer NOT NULL CHECK (party_size BETWEEN 1 AND 50),
    together        boolean NOT NULL,
    section_id      bigint REFERENCES sections,
    tier_id         bigint REFERENCES price_tiers,
    max_price_cents integer CHECK (max_price_cents >= 0),
    email           text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
    lang            text NOT NULL DEFAULT 'en' CHECK (lang IN ('en', 'de', 'fr', 'es')),
    status          text NOT NULL DEFAULT 'waiting'
                        CHECK (status IN ('waiting', 'offered', 'accepted', 'lapsed', 'left')),
    -- The offer: a hold made for the party (its buyer id is the entry's
    -- own, so it can't collide with a hold the buyer has).
    hold_id         uuid UNIQUE REFERENCES holds,
    offered_at      timestamptz,
    offer_expires_at timestamptz,
    -- A party whose offer lapsed may join again at the back, once.
    rejoined_from   uuid UNIQUE REFERENCES waitlist_entries,
    closed_at       timestamptz,
    -- An offer out or bought has its hold; a party still waiting has none.
    -- (Lapsed and left ones keep what they had, for the record.)
    CHECK (status NOT IN ('offered', 'accepted') OR (hold_id IS NOT NULL AND offered_at IS NOT NULL)),
    CHECK (status <> 'waiting' OR hold_id IS NULL)
);
CREATE UNIQUE INDEX waitlist_entries_by_seq ON waitlist_entries (event_id, joined_seq);
-- What every buyer claim probes: is anyone waiting for this event?
CREATE INDEX waitlist_entries_waiting ON waitlist_entries (event_id, joined_seq)
    WHERE status = 'waiting';
CREATE INDEX waitlist_entries_offered ON waitlist_entries (offer_expires_at)
    WHERE status = 'offered';
-- One place in line per buyer, and per e-mail address, per event: a
-- flood of entries from one client can't crowd out the rest.
CREATE UNIQUE INDEX waitlist_entries_one_per_buyer ON waitlist_entries (event_id, buyer_id)
    WHERE status IN ('waiting', 'offered');
CREATE UNIQUE INDEX waitlist_entries_one_per_email ON waitlist_entries (event_id, lower(email))
    WHERE status IN ('waiting', 'offered');

-- Whether a free seat (its event, section, tier and attributes) is kept
-- for the waitlist: some party waits that would take it, and staff
-- haven't paused the list. Wheelchair spaces and companion seats are never
-- kept: offers don't give them (best available holds them back from
-- general parties), so kept they would be stranded. A buyer's claim and
-- best available judge each seat by it in their own statements.
CREATE FUNCTION waitlist_keeps(event_id bigint, section_id bigint, tier_id bigint,
                               accessibility text[])
    RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT NOT accessibility && ARRAY['wheelchair', 'companion']
       AND EXISTS (SELECT 1 FROM waitlist_entries w JOIN events e ON e.id = w.event_id
                    WHERE w.event_id = waitlist_keeps.event_id AND w.status = 'waiting'
                      AND NOT e.waitlist_paused
                      AND (w.section_id IS NULL OR w.section_id = waitlist_keeps.section_id)
                      AND (w.tier_id IS NULL OR w.tier_id = waitlist_keeps.tier_id)
                      AND (w.max_price_cents IS NULL
                           OR w.max_price_cents >= (SELECT t.price_cents FROM price_tiers t
                                                     WHERE t.id = waitlist_keeps.tier_id)))
$$;

-- One row per event with a waitlist: the offer worker locks it
-- (FOR UPDATE SKIP LOCKED), so one instance at a time walks an event's
-- queue in join order, and two instances never offer to one party or let
-- a later party take seats an earlier one is being offered.
CREATE TABLE waitlist_queues (
    event_id bigint PRIMARY KEY REFERENCES events
);

-- Mail about a place on the waitlist (no order yet).
ALTER TABLE outbox ADD COLUMN waitlist_entry_id uuid REFERENCES waitlist_entries;
ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check
    CHECK (kind IN ('order_confirmation', 'webhook', 'payment_refunded',
                    'waitlist_joined', 'waitlist_offer', 'waitlist_lapsed'));
ALTER TABLE outbox DROP CONSTRAINT outbox_mail_or_webhook;
ALTER TABLE outbox ADD CONSTRAINT outbox_mail_or_webhook CHECK (
    (kind IN ('order_confirmation', 'payment_refunded') AND recipient IS NOT NULL
        AND subject IS NOT NULL AND endpoint_id IS NULL)
    OR (kind IN ('waitlist_joined', 'waitlist_offer', 'waitlist_lapsed')
        AND recipient IS NOT NULL AND subject IS NOT NULL AND waitlist_entry_id IS NOT NULL
        AND endpoint_id IS NULL)
    OR (kind = 'webhook' AND endpoint_id IS NOT NULL AND event_type IS NOT NULL
        AND payload IS NOT NULL));
