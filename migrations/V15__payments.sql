-- Taking the money (issue 30): how each event is paid for, orders that
-- wait for their payment while their seats stay held, Stripe's webhook
-- events kept once, and the calls to Stripe that must go out after a
-- commit (expiring a session, refunding a payment) queued beside it.

-- 'none': the purchase issues tickets at once (free events, comps, demos).
-- 'online': Stripe Checkout. 'box_office': reserve online, pay at the
-- counter within box_office_window_secs (never past the start).
ALTER TABLE events ADD COLUMN payment text NOT NULL DEFAULT 'none'
    CHECK (payment IN ('none', 'online', 'box_office'));
ALTER TABLE events ADD COLUMN box_office_window_secs integer NOT NULL DEFAULT 172800
    CHECK (box_office_window_secs BETWEEN 60 AND 2592000);

-- A hold being paid for: closed to the buyer's changes (so not OPEN, and
-- the buyer may open another), its seats still HELD by it until the
-- order's deadline.
ALTER TABLE holds DROP CONSTRAINT holds_state_check;
ALTER TABLE holds ADD CONSTRAINT holds_state_check
    CHECK (state IN ('OPEN', 'RELEASED', 'PURCHASED', 'EXPIRED', 'PAYING'));

-- An order's own status. 'refunded' (every ticket refunded) is read from
-- its tickets, not stored; 'lapsed' is stored when the order is let go
-- (its session expired) and read from pay_by before that (lazily, as a
-- hold lapses).
ALTER TABLE orders ADD COLUMN status text NOT NULL DEFAULT 'paid'
    CHECK (status IN ('pending_payment', 'paid', 'lapsed', 'refunded_unfulfilled'));
ALTER TABLE orders ADD COLUMN payment text NOT NULL DEFAULT 'none'
    CHECK (payment IN ('none', 'online', 'box_office'));
ALTER TABLE orders ADD COLUMN pay_by timestamptz;
-- What the buyer was asked for at checkout, and what the provider took.
ALTER TABLE orders ADD COLUMN amount_cents bigint CHECK (amount_cents >= 0);
ALTER TABLE orders ADD COLUMN amount_paid_cents bigint CHECK (amount_paid_cents >= 0);
ALTER TABLE orders ADD COLUMN paid_at timestamptz;
ALTER TABLE orders ADD COLUMN stripe_session_id text UNIQUE;
ALTER TABLE orders ADD COLUMN stripe_session_url text;
ALTER TABLE orders ADD COLUMN stripe_payment_intent text;
-- Sessions Stripe ended before the order's deadline: each makes the next
-- session's idempotency key new, so "Pay" gets a fresh session.
ALTER TABLE orders ADD COLUMN stripe_sessions_ended integer NOT NULL DEFAULT 0
    CHECK (stripe_sessions_ended >= 0);
ALTER TABLE orders ADD CONSTRAINT order_unpaid_has_a_deadline
    CHECK (status NOT IN ('pending_payment', 'lapsed') OR (pay_by IS NOT NULL AND amount_cents IS NOT NULL));
ALTER TABLE orders ADD CONSTRAINT order_waits_only_for_a_provider
    CHECK (payment <> 'none' OR status = 'paid');
ALTER TABLE orders ADD CONSTRAINT order_unfulfilled_was_paid_online
    CHECK (status <> 'refunded_unfulfilled' OR (payment = 'online' AND amount_paid_cents IS NOT NULL));
CREATE INDEX orders_pending ON orders (event_id) WHERE status = 'pending_payment';

-- What a waiting order will sell when paid: its seats and GA places at the
-- prices it was asked for. No UNIQUE on the seat: a lapsed order's seat
-- may be sold to someone else (order_lines keeps that backstop).
CREATE TABLE order_reserved_seats (
    order_id    uuid NOT NULL REFERENCES orders,
    seat_id     bigint NOT NULL REFERENCES seats,
    price_cents integer NOT NULL CHECK (price_cents >= 0),
    PRIMARY KEY (order_id, seat_id)
);
CREATE TABLE order_reserved_ga (
    order_id    uuid NOT NULL REFERENCES orders,
    area_id     bigint NOT NULL REFERENCES ga_areas,
    quantity    integer NOT NULL CHECK (quantity > 0),
    price_cents integer NOT NULL CHECK (price_cents >= 0),
    PRIMARY KEY (order_id, area_id)
);

-- Every Stripe webhook event acted on, once: a redelivery finds its id here.
CREATE TABLE stripe_events (
    id          text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 255),
    type        text NOT NULL,
    order_id    uuid REFERENCES orders,
    outcome     text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

-- Calls to the provider made after a commit, leased like the outbox:
-- 'expire' asks Stripe to close a session whose order's deadline passed
-- (best effort); 'refund' gives money back, retried until Stripe accepts.
CREATE TABLE payment_jobs (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind            text NOT NULL CHECK (kind IN ('expire', 'refund')),
    order_id        uuid NOT NULL REFERENCES orders,
    amount_cents    bigint CHECK (amount_cents > 0),
    reason          text NOT NULL DEFAULT '',
    staff_id        bigint REFERENCES staff,
    created_at      timestamptz NOT NULL DEFAULT now(),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    lease           uuid,
    leased_until    timestamptz,
    done_at         timestamptz,
    -- The refund's id at the provider, once it accepted it.
    provider_ref    text,
    -- A refund of a payment other than the order's own (a second session
    -- paid for an order already settled); NULL: the order's payment.
    payment_intent  text,
    last_error      text,
    CONSTRAINT payment_job_lease_together CHECK ((lease IS NULL) = (leased_until IS NULL)),
    CONSTRAINT payment_job_done_is_unleased CHECK (done_at IS NULL OR lease IS NULL),
    CONSTRAINT payment_refund_has_an_amount CHECK ((kind = 'refund') = (amount_cents IS NOT NULL))
);
CREATE INDEX payment_jobs_due ON payment_jobs (next_attempt_at) WHERE done_at IS NULL;
CREATE INDEX payment_jobs_by_order ON payment_jobs (order_id);
-- One expiry call per order.
CREATE UNIQUE INDEX payment_jobs_one_expire ON payment_jobs (order_id) WHERE kind = 'expire';

-- The buyer is told by e-mail when a late payment could not get its seats.
ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check
    CHECK (kind IN ('order_confirmation', 'webhook', 'payment_refunded'));
ALTER TABLE outbox DROP CONSTRAINT outbox_mail_or_webhook;
ALTER TABLE outbox ADD CONSTRAINT outbox_mail_or_webhook CHECK (
    (kind IN ('order_confirmation', 'payment_refunded') AND recipient IS NOT NULL
        AND subject IS NOT NULL AND endpoint_id IS NULL)
    OR (kind = 'webhook' AND endpoint_id IS NOT NULL AND event_type IS NOT NULL
        AND payload IS NOT NULL));
