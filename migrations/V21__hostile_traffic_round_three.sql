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
