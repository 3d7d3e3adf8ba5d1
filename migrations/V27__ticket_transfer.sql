-- The ticket in the buyer's hand (issue 49): a ticket can be sent to
-- someone else. The transfer gives the ticket row a new code in one
-- conditional UPDATE, the same row the door's admission updates, so a
-- ticket is never both admitted and given away; the old code is kept
-- here, so the door can say "Transferred" rather than "Unknown".

-- Each event's rules: whether its tickets may be passed on, until when
-- (NULL: until the doors open, which is the event's start or its first
-- admission, whichever comes first), and how often each ticket.
ALTER TABLE events
    ADD COLUMN doors_opened_at timestamptz,
    ADD COLUMN transfers_allowed boolean NOT NULL DEFAULT true,
    ADD COLUMN transfers_close_at timestamptz,
    ADD COLUMN transfers_per_ticket integer NOT NULL DEFAULT 3
        CHECK (transfers_per_ticket BETWEEN 0 AND 20);

-- Who holds the ticket now, when it is not the buyer: its page, its PDF
-- and the door show this name, and the buyer's order no longer shows
-- its code.
ALTER TABLE tickets
    ADD COLUMN holder_name text CHECK (holder_name IS NULL OR length(holder_name) BETWEEN 1 AND 200),
    ADD COLUMN holder_email text CHECK (holder_email IS NULL OR length(holder_email) BETWEEN 3 AND 254),
    ADD COLUMN holder_lang text CHECK (holder_lang IS NULL OR holder_lang IN ('en', 'de', 'fr', 'es')),
    ADD COLUMN transfer_count integer NOT NULL DEFAULT 0 CHECK (transfer_count >= 0),
    ADD CONSTRAINT ticket_holder_whole
        CHECK ((holder_name IS NULL) = (holder_email IS NULL)
               AND (holder_name IS NULL) = (holder_lang IS NULL)
               AND (holder_name IS NULL) = (transfer_count = 0));

CREATE TABLE ticket_transfers (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ticket_id      bigint NOT NULL REFERENCES tickets,
    event_id       bigint NOT NULL REFERENCES events,
    -- A code is given away once; it never comes back (new codes are new
    -- random draws).
    from_code      text NOT NULL UNIQUE CHECK (from_code ~ '^[A-Z2-7]{32}$'),
    to_code        text NOT NULL UNIQUE CHECK (to_code ~ '^[A-Z2-7]{32}$'),
    -- Who sent it (the buyer, or the last person it was sent to), for
    -- their receipt; NULL e-mail: a box-office buyer who gave none.
    from_name      text NOT NULL,
    from_email     text,
    from_lang      text NOT NULL CHECK (from_lang IN ('en', 'de', 'fr', 'es')),
    to_name        text NOT NULL CHECK (length(to_name) BETWEEN 1 AND 200),
    to_email       text NOT NULL CHECK (length(to_email) BETWEEN 3 AND 254),
    to_lang        text NOT NULL CHECK (to_lang IN ('en', 'de', 'fr', 'es')),
    -- Staff (or a box-office key) who made it at the counter; both NULL:
    -- the holder did.
    by_staff_id    bigint REFERENCES staff,
    by_api_key_id  bigint REFERENCES api_keys,
    transferred_at timestamptz NOT NULL DEFAULT now(),
    CHECK (from_code <> to_code)
);
CREATE INDEX ticket_transfers_by_ticket ON ticket_transfers (ticket_id, id);
CREATE INDEX ticket_transfers_by_event ON ticket_transfers (event_id);

-- A transfer is mailed twice: the ticket to its new holder, and a receipt
-- to whoever sent it. Both name the transfer (and its order, so the
-- event's Mail page lists them).
ALTER TABLE outbox ADD COLUMN ticket_transfer_id bigint REFERENCES ticket_transfers;
ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check
    CHECK (kind IN ('order_confirmation', 'webhook', 'payment_refunded', 'order_refunded',
                    'waitlist_joined', 'waitlist_offer', 'waitlist_lapsed',
                    'ticket_transferred', 'transfer_receipt'));
ALTER TABLE outbox DROP CONSTRAINT outbox_mail_or_webhook;
ALTER TABLE outbox ADD CONSTRAINT outbox_mail_or_webhook CHECK (
    (kind IN ('order_confirmation', 'payment_refunded') AND recipient IS NOT NULL
        AND subject IS NOT NULL AND endpoint_id IS NULL)
    OR (kind = 'order_refunded' AND recipient IS NOT NULL AND subject IS NOT NULL
        AND order_id IS NOT NULL AND payload IS NOT NULL AND endpoint_id IS NULL)
    OR (kind IN ('waitlist_joined', 'waitlist_offer', 'waitlist_lapsed')
        AND recipient IS NOT NULL AND subject IS NOT NULL AND waitlist_entry_id IS NOT NULL
        AND endpoint_id IS NULL)
    OR (kind IN ('ticket_transferred', 'transfer_receipt') AND recipient IS NOT NULL
        AND subject IS NOT NULL AND order_id IS NOT NULL AND ticket_transfer_id IS NOT NULL
        AND endpoint_id IS NULL)
    OR (kind = 'webhook' AND endpoint_id IS NOT NULL AND event_type IS NOT NULL
        AND payload IS NOT NULL));

-- An offline device that let someone in by a code given away before its
-- list was fetched again: recorded, like a ticket let in twice.
ALTER TABLE door_conflicts DROP CONSTRAINT door_conflicts_kind_check;
ALTER TABLE door_conflicts ADD CONSTRAINT door_conflicts_kind_check
    CHECK (kind IN ('admitted_twice', 'refunded', 'out_of_window', 'transferred'));
