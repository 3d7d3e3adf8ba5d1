-- Promo codes (issue 47): a discount per ticket, percent or amount, with
-- its uses counted by each purchase in its own transaction.
CREATE TABLE promo_codes (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id         bigint NOT NULL REFERENCES events ON DELETE CASCADE,
    -- As staff wrote it; matched without regard to case.
    code             text NOT NULL CHECK (code ~ '^[A-Za-z0-9_-]{3,40}$'),
    percent_off      integer CHECK (percent_off BETWEEN 1 AND 100),
    amount_off_cents integer CHECK (amount_off_cents >= 1),
    -- Orders that may use it (NULL: any number), and those that have.
    max_uses         integer CHECK (max_uses >= 1),
    uses             integer NOT NULL DEFAULT 0 CHECK (uses >= 0),
    valid_from       timestamptz,
    valid_until      timestamptz,
    -- The price types it applies to (NULL: every ticket).
    price_types      text[],
    created_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT promo_code_one_discount CHECK ((percent_off IS NULL) <> (amount_off_cents IS NULL)),
    -- The backstop: a code is never used more often than it may be.
    CONSTRAINT promo_code_within_uses CHECK (max_uses IS NULL OR uses <= max_uses),
    CONSTRAINT promo_code_window CHECK (valid_from IS NULL OR valid_until IS NULL OR valid_from < valid_until)
);
CREATE UNIQUE INDEX promo_codes_event_code ON promo_codes (event_id, lower(code));

-- The code an order used, and what it took off; each line's share.
ALTER TABLE orders
    ADD COLUMN promo_code_id bigint REFERENCES promo_codes,
    ADD COLUMN discount_cents bigint NOT NULL DEFAULT 0 CHECK (discount_cents >= 0);
ALTER TABLE order_lines
    ADD COLUMN discount_cents integer NOT NULL DEFAULT 0 CHECK (discount_cents >= 0);
