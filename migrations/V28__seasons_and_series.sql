-- Seasons and series (issue 50).
--
-- A series is events copied from one another: each copy names the event
-- the series began with, so the event list can group them.
ALTER TABLE events ADD COLUMN series_id bigint REFERENCES events;
CREATE INDEX events_by_series ON events (series_id) WHERE series_id IS NOT NULL;

-- A season sells the same place in every one of its events (or in the k
-- of them a buyer chooses) as one purchase. Its events share a venue
-- version, so a place is the same section, row and seat in each.
CREATE TABLE seasons (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name            text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    -- The layout its events share: a venue version, or (events without a
    -- venue, such as the demo hall) the series they were all copied in.
    venue_id        bigint,
    venue_version   integer,
    series_id       bigint REFERENCES events,
    on_sale_at      timestamptz NOT NULL DEFAULT now(),
    -- How a season order is paid. Only sold-at-once is built so far; the
    -- CHECK says so rather than letting a mode be stored that nothing honours.
    payment         text NOT NULL DEFAULT 'none' CHECK (payment IN ('none')),
    -- A partial season: the buyer chooses this many of its events (NULL: all).
    choose_events   integer CHECK (choose_events >= 1),
    -- Whether a subscriber who releases a night gets its price back as
    -- credit once the seat sells again.
    release_credit  boolean NOT NULL DEFAULT false,
    -- The season this one renews (its subscribers are offered their places).
    renews_season_id bigint REFERENCES seasons,
    created_at      timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (venue_id, venue_version) REFERENCES venue_versions (venue_id, version),
    CONSTRAINT season_has_one_layout
        CHECK ((venue_id IS NOT NULL AND venue_version IS NOT NULL AND series_id IS NULL)
               OR (venue_id IS NULL AND venue_version IS NULL AND series_id IS NOT NULL))
);

CREATE TABLE season_events (
    season_id  bigint NOT NULL REFERENCES seasons ON DELETE CASCADE,
    event_id   bigint NOT NULL REFERENCES events,
    -- 1 is the first event (by its start): its seat ids name the places.
    position   integer NOT NULL CHECK (position >= 1),
    PRIMARY KEY (season_id, event_id),
    UNIQUE (season_id, position)
);
CREATE INDEX season_events_by_event ON season_events (event_id);

-- The season's own price for a place, per tier code, for all its events
-- together (or for the k chosen).
CREATE TABLE season_prices (
    season_id   bigint NOT NULL REFERENCES seasons ON DELETE CASCADE,
    tier_code   text NOT NULL,
    price_cents integer NOT NULL CHECK (price_cents >= 0),
    PRIMARY KEY (season_id, tier_code)
);

-- Each place of the season (its seat in the first event) and its seat in
-- every event, written once when the season is made, so a claim finds the
-- seats of a place without matching labels on the hot path.
CREATE TABLE season_places (
    season_id  bigint NOT NULL REFERENCES seasons ON DELETE CASCADE,
    place_id   bigint NOT NULL REFERENCES seats,
    event_id   bigint NOT NULL,
    seat_id    bigint NOT NULL REFERENCES seats,
    PRIMARY KEY (season_id, place_id, event_id),
    UNIQUE (season_id, seat_id),
    FOREIGN KEY (season_id, event_id) REFERENCES season_events (season_id, event_id) ON DELETE CASCADE
);
CREATE INDEX season_places_by_seat ON season_places (seat_id);

-- One buyer's claim on places across the season's events. It holds its
-- seats through one ordinary hold per event (holds.season_hold_id), all
-- with the season hold's expiry, so lazy expiry frees every night at the
-- same instant. Those holds belong to no buyer (their buyer_id is the
-- season hold's id), so no single-event path can buy or release one
-- night of a season alone.
CREATE TABLE season_holds (
    id          uuid PRIMARY KEY,
    season_id   bigint NOT NULL REFERENCES seasons,
    buyer_id    uuid NOT NULL,
    state       text NOT NULL DEFAULT 'OPEN'
                CHECK (state IN ('OPEN', 'RELEASED', 'PURCHASED', 'EXPIRED')),
    event_ids   bigint[] NOT NULL CHECK (cardinality(event_ids) >= 1),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    closed_at   timestamptz,
    client_ip   inet,
    -- A renewal: the order of the last season whose places it keeps.
    renewal_of  uuid,
    CHECK (expires_at > created_at),
    CHECK ((state = 'OPEN') = (closed_at IS NULL))
);
CREATE UNIQUE INDEX season_holds_one_open_per_buyer ON season_holds (season_id, buyer_id)
    WHERE state = 'OPEN';
CREATE UNIQUE INDEX season_holds_one_renewal_per_order ON season_holds (season_id, renewal_of)
    WHERE renewal_of IS NOT NULL;

ALTER TABLE holds ADD COLUMN season_hold_id uuid REFERENCES season_holds;
CREATE INDEX holds_by_season_hold ON holds (season_hold_id) WHERE season_hold_id IS NOT NULL;
-- A night of a season is held, bought and closed with its season hold.
ALTER TABLE holds ADD CONSTRAINT season_night_has_no_buyer
    CHECK (season_hold_id IS NULL OR buyer_id = season_hold_id);

-- A season order is one order (under the season's first event) whose
-- seats and tickets are in every event of the season. A seat or ticket
-- still names its order and its own event together, so a seat can't be
-- sold by an order of another event: the pair is now checked against the
-- events each order covers (its own, and its season hold's nights),
-- written by a trigger when the order is.
ALTER TABLE orders ADD COLUMN season_id bigint REFERENCES seasons;
ALTER TABLE orders ADD COLUMN season_hold_id uuid UNIQUE REFERENCES season_holds;
ALTER TABLE orders ADD CONSTRAINT season_order_has_its_hold
    CHECK ((season_id IS NULL) = (season_hold_id IS NULL));
CREATE INDEX orders_by_season ON orders (season_id) WHERE season_id IS NOT NULL;

CREATE TABLE order_events (
    order_id  uuid NOT NULL REFERENCES orders ON DELETE CASCADE,
    event_id  bigint NOT NULL REFERENCES events,
    PRIMARY KEY (event_id, order_id)
);
CREATE INDEX order_events_by_order ON order_events (order_id);
INSERT INTO order_events (order_id, event_id) SELECT id, event_id FROM orders;

CREATE FUNCTION order_events_of_new_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO order_events (order_id, event_id)
    SELECT NEW.id, NEW.event_id
    UNION
    SELECT NEW.id, night.event_id
      FROM season_holds sh CROSS JOIN LATERAL unnest(sh.event_ids) AS night(event_id)
     WHERE sh.id = NEW.season_hold_id;
    RETURN NULL;
END $$;
CREATE TRIGGER orders_cover_their_events AFTER INSERT ON orders
    FOR EACH ROW EXECUTE FUNCTION order_events_of_new_order();
-- An order's event (and its season's nights) are fixed once it is made.
CREATE FUNCTION order_event_is_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'an order''s event and season are fixed' USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER orders_event_fixed BEFORE UPDATE OF event_id, season_hold_id ON orders
    FOR EACH ROW WHEN (OLD.event_id IS DISTINCT FROM NEW.event_id
                       OR OLD.season_hold_id IS DISTINCT FROM NEW.season_hold_id)
    EXECUTE FUNCTION order_event_is_fixed();

ALTER TABLE seats DROP CONSTRAINT seats_event_id_order_id_fkey;
ALTER TABLE seats ADD CONSTRAINT seats_sold_by_an_order_of_the_event
    FOREIGN KEY (event_id, order_id) REFERENCES order_events (event_id, order_id);
ALTER TABLE tickets DROP CONSTRAINT tickets_event_id_order_id_fkey;
ALTER TABLE tickets ADD CONSTRAINT tickets_of_an_order_of_the_event
    FOREIGN KEY (event_id, order_id) REFERENCES order_events (event_id, order_id);

-- The backstop for "every night or none": at commit, a season order was
-- sold each of its places in every night its hold covered (counted among
-- the tickets issued with the order, so a later reseat or release doesn't
-- count), and at least one place.
CREATE FUNCTION season_order_whole() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM tickets t WHERE t.order_id = NEW.id)
       OR EXISTS (
        SELECT 1
          FROM orders o
          JOIN season_holds sh ON sh.id = o.season_hold_id
          JOIN tickets t ON t.order_id = o.id AND t.issued_at = o.created_at
          JOIN season_places p ON p.season_id = o.season_id AND p.seat_id = t.seat_id
         WHERE o.id = NEW.id
         GROUP BY p.place_id
        HAVING count(*) <> min(cardinality(sh.event_ids))
            OR count(DISTINCT t.event_id) <> min(cardinality(sh.event_ids))
            OR NOT bool_and(t.event_id = ANY(sh.event_ids))
    ) THEN
        RAISE EXCEPTION 'season order % would have a place in only some of its nights', NEW.id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;
-- On the order, once, at commit: its tickets are written after it.
CREATE CONSTRAINT TRIGGER orders_season_order_whole
    AFTER INSERT ON orders DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.season_hold_id IS NOT NULL)
    EXECUTE FUNCTION season_order_whole();

-- A subscriber gives one night back to sale: the ticket is voided with
-- this reason and its seat goes on sale for that event alone. Whether it
-- earns credit is the season's rule at the time; the credit is owed once
-- the seat is sold again, read from the seat, never stored twice.
CREATE TABLE season_releases (
    ticket_id    bigint PRIMARY KEY REFERENCES tickets,
    order_id     uuid NOT NULL REFERENCES orders,
    event_id     bigint NOT NULL REFERENCES events,
    seat_id      bigint NOT NULL REFERENCES seats,
    credit       boolean NOT NULL,
    credit_cents integer NOT NULL CHECK (credit_cents >= 0),
    released_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX season_releases_by_order ON season_releases (order_id);


-- Each subscriber of a season renewed is mailed a signed link to renew
-- (pay) or give up; the message names their last order and (in its
-- payload) the renewal hold.
ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check
    CHECK (kind IN ('order_confirmation', 'webhook', 'payment_refunded', 'order_refunded',
                    'waitlist_joined', 'waitlist_offer', 'waitlist_lapsed',
                    'ticket_transferred', 'transfer_receipt', 'season_renewal'));
ALTER TABLE outbox DROP CONSTRAINT outbox_mail_or_webhook;
ALTER TABLE outbox ADD CONSTRAINT outbox_mail_or_webhook CHECK (
    (kind IN ('order_confirmation', 'payment_refunded') AND recipient IS NOT NULL
        AND subject IS NOT NULL AND endpoint_id IS NULL)
    OR (kind IN ('order_refunded', 'season_renewal') AND recipient IS NOT NULL
        AND subject IS NOT NULL AND order_id IS NOT NULL AND payload IS NOT NULL
        AND endpoint_id IS NULL)
    OR (kind IN ('waitlist_joined', 'waitlist_offer', 'waitlist_lapsed')
        AND recipient IS NOT NULL AND subject IS NOT NULL AND waitlist_entry_id IS NOT NULL
        AND endpoint_id IS NULL)
    OR (kind IN ('ticket_transferred', 'transfer_receipt') AND recipient IS NOT NULL
        AND subject IS NOT NULL AND order_id IS NOT NULL AND ticket_transfer_id IS NOT NULL
        AND endpoint_id IS NULL)
    OR (kind = 'webhook' AND endpoint_id IS NOT NULL AND event_type IS NOT NULL
        AND payload IS NOT NULL));
