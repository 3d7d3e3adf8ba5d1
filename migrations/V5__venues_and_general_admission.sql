-- Venues imported from layout files, events created from them with an
-- on-sale window, staff closing or cancelling sales, and general-admission
-- areas sold as counted stock rather than seat rows.

-- A venue keeps its validated layout in the canonical JSON form (the one
-- the schema in static/venue-layout.schema.json describes, with every
-- coordinate and rank spelled out), so an import can be exported again and
-- an event can be built from it without the original file.
CREATE TABLE venues (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL UNIQUE CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    layout      jsonb NOT NULL,
    seat_count  integer NOT NULL CHECK (seat_count >= 0),
    ga_capacity integer NOT NULL CHECK (ga_capacity >= 0),
    CHECK (seat_count + ga_capacity > 0),
    imported_by bigint REFERENCES staff,
    imported_at timestamptz NOT NULL DEFAULT now()
);

-- The on-sale window: holds are taken from on_sale_at (NULL: at once)
-- until the event starts. Staff may close sales early or cancel the event;
-- either ends selling for good.
ALTER TABLE events
    ADD COLUMN venue_id        bigint REFERENCES venues,
    ADD COLUMN on_sale_at      timestamptz,
    ADD COLUMN sales_closed_at timestamptz,
    ADD COLUMN cancelled_at    timestamptz,
    ADD CONSTRAINT event_on_sale_before_start CHECK (on_sale_at < starts_at),
    ADD CONSTRAINT event_cancelled_means_closed
        CHECK (cancelled_at IS NULL OR sales_closed_at IS NOT NULL);

-- Orders of a cancelled event are kept, and flagged for refund.
ALTER TABLE orders ADD COLUMN event_cancelled boolean NOT NULL DEFAULT false;

-- A general-admission area is fungible stock: a capacity and two counters.
-- Claims move `held` with a guarded relative update; the CHECK is the
-- backstop that refuses any oversell whatever code runs.
CREATE TABLE ga_areas (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    bigint NOT NULL REFERENCES events,
    name        text NOT NULL,
    tier_id     bigint NOT NULL,
    capacity    integer NOT NULL CHECK (capacity > 0),
    held        integer NOT NULL DEFAULT 0 CHECK (held >= 0),
    sold        integer NOT NULL DEFAULT 0 CHECK (sold >= 0),
    sort_order  integer NOT NULL,
    CONSTRAINT ga_never_oversold CHECK (held + sold <= capacity),
    FOREIGN KEY (event_id, tier_id) REFERENCES price_tiers (event_id, id),
    UNIQUE (event_id, name),
    UNIQUE (event_id, id)
);

-- One hold's (or order's) tickets in one area. Held tickets carry their
-- hold's expiry, like seats, and count in the area's `held` until they are
-- bought (order_id set, counted in `sold`) or given back: released, or
-- lapsed and returned by the next claim on the area.
CREATE TABLE ga_tickets (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    bigint NOT NULL,
    area_id     bigint NOT NULL,
    hold_id     uuid NOT NULL,
    quantity    integer NOT NULL CHECK (quantity > 0),
    held_until  timestamptz,
    order_id    uuid,
    price_cents integer CHECK (price_cents >= 0),
    FOREIGN KEY (event_id, area_id) REFERENCES ga_areas (event_id, id),
    FOREIGN KEY (event_id, hold_id) REFERENCES holds (event_id, id),
    FOREIGN KEY (event_id, order_id) REFERENCES orders (event_id, id),
    CONSTRAINT ga_ticket_held_or_sold
        CHECK ((held_until IS NULL) = (order_id IS NOT NULL)),
    CONSTRAINT ga_ticket_sold_has_price
        CHECK ((order_id IS NULL) = (price_cents IS NULL))
);
-- A hold has one line per area (a second claim adds to it).
CREATE UNIQUE INDEX ga_tickets_one_line_per_hold ON ga_tickets (hold_id, area_id)
    WHERE order_id IS NULL;
CREATE INDEX ga_tickets_lapsing ON ga_tickets (area_id, held_until)
    WHERE order_id IS NULL;
CREATE INDEX ga_tickets_by_order ON ga_tickets (order_id) WHERE order_id IS NOT NULL;

-- Live maps hear of GA changes on the seats' channel, flagged "ga", one
-- notification per event per statement, delivered at commit.
CREATE FUNCTION ga_areas_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('seat_changes', json_build_object('event_id', event_id, 'ga', true)::text)
       FROM (SELECT DISTINCT event_id FROM changed) AS events;
    RETURN NULL;
END $$;

CREATE TRIGGER ga_areas_notify AFTER UPDATE ON ga_areas
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION ga_areas_notify();
