-- Webhooks: endpoints staff register, and deliveries that go through the
-- outbox like e-mail: a row written in the transaction of the change it
-- reports, leased with SKIP LOCKED, sent with no transaction open.
CREATE TABLE webhook_endpoints (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url         text NOT NULL CHECK (url ~ '^https?://[^[:space:]]+$' AND length(url) <= 2000),
    -- The receiver checks signatures with it, so it is kept (not hashed).
    secret      text NOT NULL CHECK (length(secret) >= 32),
    event_types text[] NOT NULL CHECK (
        cardinality(event_types) > 0
        AND event_types <@ ARRAY['order.created', 'order.refunded', 'ticket.admitted',
                                 'hold.released_by_staff', 'event.sales_closed',
                                 'event.cancelled']),
    created_by  bigint REFERENCES staff,
    created_at  timestamptz NOT NULL DEFAULT now(),
    disabled_at timestamptz
);

-- The outbox carries webhook deliveries too. A delivery's message_id is
-- its id for the receiver to deduplicate on.
ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check CHECK (kind IN ('order_confirmation', 'webhook'));
ALTER TABLE outbox ALTER COLUMN recipient DROP NOT NULL;
ALTER TABLE outbox ALTER COLUMN subject DROP NOT NULL;
ALTER TABLE outbox ADD COLUMN endpoint_id bigint REFERENCES webhook_endpoints;
ALTER TABLE outbox ADD COLUMN event_type text;
ALTER TABLE outbox ADD COLUMN payload jsonb;
ALTER TABLE outbox ADD COLUMN last_status integer;
ALTER TABLE outbox ADD COLUMN last_response text;
ALTER TABLE outbox ADD CONSTRAINT outbox_mail_or_webhook CHECK (
    (kind = 'order_confirmation' AND recipient IS NOT NULL AND subject IS NOT NULL
        AND endpoint_id IS NULL)
    OR (kind = 'webhook' AND endpoint_id IS NOT NULL AND event_type IS NOT NULL
        AND payload IS NOT NULL));
CREATE INDEX outbox_due_by_kind ON outbox (kind, next_attempt_at) WHERE sent_at IS NULL;
CREATE INDEX outbox_by_endpoint ON outbox (endpoint_id, created_at DESC) WHERE endpoint_id IS NOT NULL;
