-- Hostile traffic, round two (issue 25).

-- A webhook secret can be rotated: the previous one still signs, beside
-- the new, until previous_secret_until, so receivers switch without a gap.
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret text;
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_until timestamptz;
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_previous_secret_has_an_end
    CHECK ((previous_secret IS NULL) = (previous_secret_until IS NULL));

-- A message ends in one way at most: sent; retired (there is nothing left
-- to send, say its order was refunded); or failed (given up after the
-- configured number of attempts, until staff send it again by hand).
-- Nothing retired or failed is leased.
ALTER TABLE outbox ADD COLUMN retired_at timestamptz;
ALTER TABLE outbox ADD COLUMN failed_at timestamptz;
ALTER TABLE outbox ADD CONSTRAINT outbox_ends_once
    CHECK (num_nonnulls(sent_at, retired_at, failed_at) <= 1);
ALTER TABLE outbox ADD CONSTRAINT outbox_ended_is_unleased
    CHECK ((retired_at IS NULL AND failed_at IS NULL) OR lease IS NULL);
DROP INDEX outbox_due;
DROP INDEX outbox_due_by_kind;
CREATE INDEX outbox_due_by_kind ON outbox (kind, next_attempt_at)
    WHERE sent_at IS NULL AND retired_at IS NULL AND failed_at IS NULL;

-- The delivery log keeps a receiver's status, never the text it answered
-- (which made the log a way to read whatever answers at an address).
UPDATE outbox
   SET last_response = CASE WHEN last_status IS NOT NULL THEN 'HTTP ' || last_status END,
       last_error = CASE WHEN last_error IS NOT NULL THEN 'no answer' END
 WHERE kind = 'webhook';

-- Holds made with an API key count against the key's own cap of live holds.
ALTER TABLE holds ADD COLUMN api_key_id bigint REFERENCES api_keys;
CREATE INDEX holds_open_by_key ON holds (api_key_id, expires_at)
    WHERE state = 'OPEN' AND api_key_id IS NOT NULL;
