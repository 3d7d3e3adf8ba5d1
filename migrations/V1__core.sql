-- Core schema. The seat row is the unit of truth and of locking: its status
-- decides who may buy it, and the constraints below refuse any state the
-- application must never produce, whatever code path (or bug) tries.

CREATE TABLE events (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    slug        text UNIQUE,
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    venue       text NOT NULL,
    starts_at   timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE price_tiers (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    bigint NOT NULL REFERENCES events ON DELETE CASCADE,
    code        text NOT NULL,
    name        text NOT NULL,
    price_cents integer NOT NULL CHECK (price_cents >= 0),
    sort_order  integer NOT NULL DEFAULT 0,
    UNIQUE (event_id, code),
    -- target of the composite key below, so a seat can't be priced by another event's tier
    UNIQUE (event_id, id)
);

CREATE TABLE sections (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    bigint NOT NULL REFERENCES events ON DELETE CASCADE,
    name        text NOT NULL,
    sort_order  integer NOT NULL,
    UNIQUE (event_id, name),
    UNIQUE (event_id, id)
);

-- A hold is one buyer's basket for one event. Its expiry is fixed when it
-- is created (with its first seat) and copied onto each seat it claims as
-- held_until, so the claim predicate never has to join.
CREATE TABLE holds (
    id          uuid PRIMARY KEY,
    event_id    bigint NOT NULL REFERENCES events,
    buyer_id    uuid NOT NULL,
    state       text NOT NULL DEFAULT 'OPEN'
                CHECK (state IN ('OPEN', 'RELEASED', 'PURCHASED', 'EXPIRED')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    closed_at   timestamptz,
    CHECK (expires_at > created_at),
    CHECK ((state = 'OPEN') = (closed_at IS NULL)),
    UNIQUE (event_id, id)
);
-- One open hold per buyer per event. "Open" may have lapsed (expiry is lazy);
-- the claim transaction closes a lapsed one before opening the next.
CREATE UNIQUE INDEX holds_one_open_per_buyer ON holds (event_id, buyer_id) WHERE state = 'OPEN';

CREATE TABLE orders (
    id          uuid PRIMARY KEY,
    event_id    bigint NOT NULL REFERENCES events,
    hold_id     uuid UNIQUE REFERENCES holds,
    buyer_id    uuid NOT NULL,
    buyer_name  text NOT NULL CHECK (length(btrim(buyer_name)) BETWEEN 1 AND 200),
    buyer_email text NOT NULL CHECK (buyer_email ~ '^[^@[:space:]]+@[^@[:space:]]+$' AND length(buyer_email) <= 254),
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (event_id, id)
);

CREATE TABLE seats (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    bigint NOT NULL REFERENCES events,
    section_id  bigint NOT NULL,
    tier_id     bigint NOT NULL,
    row_label   text NOT NULL,
    seat_label  text NOT NULL,
    -- row_index 0 is the row nearest the stage; position orders seats along
    -- a row, so adjacent seats have consecutive positions.
    row_index   integer NOT NULL CHECK (row_index >= 0),
    position    integer NOT NULL,
    x           real NOT NULL CHECK (x >= 0),
    y           real NOT NULL CHECK (y >= 0),
    -- lower is better; used by best-available
    rank        integer NOT NULL,
    status      text NOT NULL DEFAULT 'AVAILABLE'
                CHECK (status IN ('AVAILABLE', 'HELD', 'SOLD', 'BLOCKED')),
    hold_id     uuid,
    held_until  timestamptz,
    order_id    uuid,
    FOREIGN KEY (event_id, section_id) REFERENCES sections (event_id, id),
    FOREIGN KEY (event_id, tier_id) REFERENCES price_tiers (event_id, id),
    FOREIGN KEY (event_id, hold_id) REFERENCES holds (event_id, id),
    FOREIGN KEY (event_id, order_id) REFERENCES orders (event_id, id),
    UNIQUE (section_id, row_label, seat_label),
    UNIQUE (section_id, row_index, position),
    CONSTRAINT seat_held_iff_hold_and_expiry
        CHECK ((status = 'HELD') = (hold_id IS NOT NULL AND held_until IS NOT NULL)),
    CONSTRAINT seat_hold_fields_together
        CHECK ((hold_id IS NULL) = (held_until IS NULL)),
    CONSTRAINT seat_sold_iff_order
        CHECK ((status = 'SOLD') = (order_id IS NOT NULL))
);
CREATE INDEX seats_event_layout ON seats (event_id, section_id, row_index, position);
CREATE INDEX seats_by_hold ON seats (hold_id) WHERE hold_id IS NOT NULL;
CREATE INDEX seats_by_order ON seats (order_id) WHERE order_id IS NOT NULL;

CREATE TABLE order_lines (
    order_id    uuid NOT NULL REFERENCES orders,
    seat_id     bigint NOT NULL REFERENCES seats,
    price_cents integer NOT NULL CHECK (price_cents >= 0),
    PRIMARY KEY (order_id, seat_id)
);
-- The backstop against overselling: a seat appears on at most one order.
CREATE UNIQUE INDEX order_lines_seat_sold_once ON order_lines (seat_id);

-- tower-sessions records, shared by every app instance.
CREATE TABLE tower_sessions (
    id          text PRIMARY KEY,
    data        jsonb NOT NULL,
    expiry_date timestamptz NOT NULL
);
CREATE INDEX tower_sessions_expiry ON tower_sessions (expiry_date);
