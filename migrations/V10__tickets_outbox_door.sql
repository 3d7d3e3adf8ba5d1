-- After the sale: a ticket per seat and per general-admission place, the
-- door that admits each once, the mail that carries them, and the box
-- office's refunds, reseats and walk-up tenders.

-- How an order was paid. Online orders are 'online'; the box office
-- records cash, a card terminal, or a complimentary ticket with its reason.
ALTER TABLE orders ADD COLUMN tender text NOT NULL DEFAULT 'online'
    CHECK (tender IN ('online', 'cash', 'card', 'comp'));
ALTER TABLE orders ADD COLUMN comp_reason text
    CHECK (comp_reason IS NULL OR length(btrim(comp_reason)) BETWEEN 1 AND 200);
ALTER TABLE orders ADD CONSTRAINT order_comp_has_reason
    CHECK ((tender = 'comp') = (comp_reason IS NOT NULL));

-- A box-office sale of general-admission places has no hold.
ALTER TABLE ga_tickets ALTER COLUMN hold_id DROP NOT NULL;
ALTER TABLE ga_tickets ADD CONSTRAINT ga_ticket_held_has_hold
    CHECK (order_id IS NOT NULL OR hold_id IS NOT NULL);

-- One per seat or GA place sold. `code` is the bearer secret printed in
-- the QR code: 160 random bits in base32, never derived from an id.
-- A refund voids the ticket (kept, for the record) and frees its place.
CREATE TABLE tickets (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    code         text NOT NULL UNIQUE CHECK (code ~ '^[A-Z2-7]{32}$'),
    event_id     bigint NOT NULL REFERENCES events,
    order_id     uuid NOT NULL,
    seat_id      bigint REFERENCES seats,
    ga_area_id   bigint,
    price_cents  integer NOT NULL CHECK (price_cents >= 0),
    issued_at    timestamptz NOT NULL DEFAULT now(),
    admitted_at  timestamptz,
    admitted_gate text CHECK (admitted_gate IS NULL OR length(admitted_gate) BETWEEN 1 AND 40),
    admitted_by  bigint REFERENCES staff,
    voided_at    timestamptz,
    void_reason  text,
    voided       boolean GENERATED ALWAYS AS (voided_at IS NOT NULL) STORED,
    FOREIGN KEY (event_id, order_id) REFERENCES orders (event_id, id),
    FOREIGN KEY (event_id, ga_area_id) REFERENCES ga_areas (event_id, id),
    CONSTRAINT ticket_for_a_seat_or_a_ga_place
        CHECK ((seat_id IS NULL) <> (ga_area_id IS NULL)),
    -- A ticket is admitted or refunded, never both: the door and the box
    -- office race on one row, and whichever commits first wins.
    CONSTRAINT ticket_admitted_or_voided
        CHECK (admitted_at IS NULL OR voided_at IS NULL),
    CONSTRAINT ticket_admission_has_gate
        CHECK ((admitted_at IS NULL) = (admitted_gate IS NULL)),
    CONSTRAINT ticket_void_has_reason
        CHECK ((voided_at IS NULL) = (void_reason IS NULL))
);
-- The backstop against two live tickets for one seat.
CREATE UNIQUE INDEX tickets_one_live_per_seat ON tickets (seat_id) WHERE voided_at IS NULL;
CREATE INDEX tickets_by_order ON tickets (order_id);
CREATE INDEX tickets_by_event ON tickets (event_id) WHERE voided_at IS NULL;

-- Orders sold before tickets existed get theirs now. The app makes codes
-- from 160 bits of its CSPRNG; here 128 random bits come from two
-- gen_random_uuid() values (each has 122; the version and variant nibbles
-- are skipped), spelled in 32 letters of the same alphabet.
CREATE FUNCTION pg_temp.random_ticket_code() RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT translate(substr(a, 1, 12) || substr(a, 18, 4) || substr(b, 1, 12) || substr(b, 18, 4),
                     '0123456789abcdef', 'ABCDEFGHIJKLMNOP')
      FROM (SELECT replace(gen_random_uuid()::text, '-', '') AS a,
                   replace(gen_random_uuid()::text, '-', '') AS b) AS random
$$;
INSERT INTO tickets (code, event_id, order_id, seat_id, price_cents, issued_at)
SELECT pg_temp.random_ticket_code(), o.event_id, o.id, l.seat_id, l.price_cents, o.created_at
  FROM order_lines l JOIN orders o ON o.id = l.order_id;
INSERT INTO tickets (code, event_id, order_id, ga_area_id, price_cents, issued_at)
SELECT pg_temp.random_ticket_code(), g.event_id, g.order_id, g.area_id, g.price_cents, o.created_at
  FROM ga_tickets g JOIN orders o ON o.id = g.order_id
 CROSS JOIN generate_series(1, g.quantity)
 WHERE g.order_id IS NOT NULL;

-- Mail to send: written in the transaction whose outcome it reports, so a
-- message exists exactly when its order does. Workers lease due rows
-- (FOR UPDATE SKIP LOCKED, then `leased_until`), send with no transaction
-- open, and mark them sent; a worker that dies mid-send leaves a lease
-- that runs out, and the row is sent again with the same Message-ID.
CREATE TABLE outbox (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id      text NOT NULL UNIQUE,
    kind            text NOT NULL CHECK (kind IN ('order_confirmation')),
    order_id        uuid REFERENCES orders,
    recipient       text NOT NULL CHECK (length(recipient) <= 254),
    subject         text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    leased_until    timestamptz,
    lease           uuid,
    sent_at         timestamptz,
    last_error      text,
    CONSTRAINT outbox_lease_fields_together CHECK ((leased_until IS NULL) = (lease IS NULL)),
    CONSTRAINT outbox_sent_is_unleased CHECK (sent_at IS NULL OR lease IS NULL)
);
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE sent_at IS NULL;
CREATE INDEX outbox_by_order ON outbox (order_id);

-- Shared secrets every instance must agree on (the key that signs links
-- to orders), made once by whichever instance starts first.
CREATE TABLE app_secrets (
    name  text PRIMARY KEY,
    value bytea NOT NULL CHECK (length(value) >= 32)
);
