-- Box office: staff accounts, an audit log, shared rate limits, and what
-- staff actions need to record on holds and orders.

CREATE TABLE staff (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9._@-]{1,64}$'),
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- Who did what, to which seats, when. Written in the same transaction as
-- the change it records, so the two can't disagree.
CREATE TABLE audit_log (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at        timestamptz NOT NULL DEFAULT now(),
    staff_id  bigint REFERENCES staff,
    action    text NOT NULL,
    event_id  bigint REFERENCES events,
    hold_id   uuid,
    order_id  uuid,
    seat_ids  bigint[] NOT NULL DEFAULT '{}',
    detail    text NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_by_event ON audit_log (event_id, at DESC);

-- Fixed-window counters for rate limits, shared by every instance.
CREATE TABLE rate_limits (
    key          text NOT NULL,
    window_start timestamptz NOT NULL,
    hits         integer NOT NULL,
    PRIMARY KEY (key, window_start)
);

-- The client address a hold was opened from, to cap live holds per address.
ALTER TABLE holds ADD COLUMN client_ip inet;
CREATE INDEX holds_open_by_ip ON holds (client_ip, expires_at) WHERE state = 'OPEN';
-- Set when staff (not the buyer) released the hold, so the buyer can be told.
ALTER TABLE holds ADD COLUMN released_by_staff bigint REFERENCES staff;

-- Box-office sales have no hold, may have no email, and name their seller.
ALTER TABLE orders ALTER COLUMN buyer_email DROP NOT NULL;
ALTER TABLE orders ADD COLUMN sold_by_staff bigint REFERENCES staff;
CREATE INDEX orders_by_event ON orders (event_id, created_at DESC);
CREATE INDEX orders_by_email ON orders (lower(buyer_email));
