-- A venue manager's day (issue 48).

-- Drafts: a new event is seen only by staff until they publish it;
-- published, it is listed and sells from its on-sale time. Events made
-- before drafts existed were on sale at once, so they count as published
-- from when they were made.
ALTER TABLE events ADD COLUMN published_at timestamptz;
UPDATE events SET published_at = created_at;

-- Every refund is mailed to the buyer: what was refunded and how the
-- money comes back, kept with the message (its payload) since an order
-- can be refunded a few tickets at a time.
ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check
    CHECK (kind IN ('order_confirmation', 'webhook', 'payment_refunded', 'order_refunded',
                    'waitlist_joined', 'waitlist_offer', 'waitlist_lapsed'));
ALTER TABLE outbox DROP CONSTRAINT outbox_mail_or_webhook;
ALTER TABLE outbox ADD CONSTRAINT outbox_mail_or_webhook CHECK (
    (kind IN ('order_confirmation', 'payment_refunded') AND recipient IS NOT NULL
        AND subject IS NOT NULL AND endpoint_id IS NULL)
    OR (kind = 'order_refunded' AND recipient IS NOT NULL AND subject IS NOT NULL
        AND order_id IS NOT NULL AND payload IS NOT NULL AND endpoint_id IS NULL)
    OR (kind IN ('waitlist_joined', 'waitlist_offer', 'waitlist_lapsed')
        AND recipient IS NOT NULL AND subject IS NOT NULL AND waitlist_entry_id IS NOT NULL
        AND endpoint_id IS NULL)
    OR (kind = 'webhook' AND endpoint_id IS NOT NULL AND event_type IS NOT NULL
        AND payload IS NOT NULL));

-- The event's Mail page lists waitlist mail too, found by its entry.
CREATE INDEX outbox_by_waitlist_entry ON outbox (waitlist_entry_id)
    WHERE waitlist_entry_id IS NOT NULL;

-- Seats staff set aside together, for a named purpose: house seats, press,
-- a sponsor. The purpose belongs to the block, so it goes with it.
ALTER TABLE seats ADD COLUMN blocked_for text
    CHECK (blocked_for IS NULL OR (status = 'BLOCKED' AND length(blocked_for) BETWEEN 1 AND 40));
