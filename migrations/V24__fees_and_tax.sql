-- Booking fees and tax (issue 47), and an order's totals that add up.
--
-- Each ticket carries its own money: its price after its discount, the
-- discount, its booking fee, and the tax on each, computed per ticket and
-- rounded half up when the ticket is issued. The order's totals are the
-- sums of its tickets, written by the same statement that issues them.

ALTER TABLE events
    ADD COLUMN booking_fee_cents integer NOT NULL DEFAULT 0
        CHECK (booking_fee_cents BETWEEN 0 AND 100000000),
    -- Percent, up to two decimals (19, 7.5, 8.875 is refused); NULL: no tax line.
    ADD COLUMN tax_rate numeric(5, 2) CHECK (tax_rate > 0 AND tax_rate < 100),
    -- EU style (the price contains the tax) or US style (added on top).
    ADD COLUMN tax_included boolean NOT NULL DEFAULT true,
    -- Whether a refund pays the booking fee back too.
    ADD COLUMN fees_refundable boolean NOT NULL DEFAULT true;

-- The tax in (included) or on (added) an amount, rounded half up. The one
-- place stored tax is computed; `domain::charges` shows the same sums
-- before a purchase, and a test holds the two to the same answers.
CREATE FUNCTION ticket_tax_cents(amount_cents bigint, rate numeric, included boolean)
    RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE
        WHEN rate IS NULL OR amount_cents = 0 THEN 0
        WHEN included THEN round(amount_cents * rate / (100 + rate))::integer
        ELSE round(amount_cents * rate / 100)::integer
    END;

ALTER TABLE tickets
    ADD COLUMN discount_cents integer NOT NULL DEFAULT 0 CHECK (discount_cents >= 0),
    ADD COLUMN fee_cents integer NOT NULL DEFAULT 0 CHECK (fee_cents >= 0),
    -- The tax on the price, and on the fee, each rounded on its own so a
    -- refund that keeps the fee gives back exactly the price's tax.
    ADD COLUMN tax_cents integer NOT NULL DEFAULT 0 CHECK (tax_cents >= 0),
    ADD COLUMN fee_tax_cents integer NOT NULL DEFAULT 0 CHECK (fee_tax_cents >= 0),
    -- What a refund paid back for this ticket (NULL: not refunded).
    ADD COLUMN refunded_cents bigint CHECK (refunded_cents >= 0);

ALTER TABLE orders
    ADD COLUMN subtotal_cents bigint NOT NULL DEFAULT 0 CHECK (subtotal_cents >= 0),
    ADD COLUMN fees_cents bigint NOT NULL DEFAULT 0 CHECK (fees_cents >= 0),
    ADD COLUMN tax_cents bigint NOT NULL DEFAULT 0 CHECK (tax_cents >= 0),
    ADD COLUMN total_cents bigint NOT NULL DEFAULT 0 CHECK (total_cents >= 0),
    -- The tax and the fee's refund rule as they were when the order was
    -- sold (NULL: no tax line): a later change doesn't reach it.
    ADD COLUMN tax_rate numeric(5, 2),
    ADD COLUMN tax_included boolean NOT NULL DEFAULT true,
    ADD COLUMN fees_refundable boolean NOT NULL DEFAULT true;

-- Tickets and orders sold before this migration. A refunded ticket paid
-- back its price; a ticket keeps its line's discount where the line is
-- still there; an order's tickets' prices (and its discount) are its
-- totals, and an order still waiting for its money totals what it asks.
UPDATE tickets SET refunded_cents = price_cents WHERE void_reason = 'refunded';
UPDATE tickets t SET discount_cents = l.discount_cents
  FROM order_lines l
 WHERE l.order_id = t.order_id AND l.seat_id = t.seat_id AND l.discount_cents > 0;
UPDATE orders o
   SET subtotal_cents = s.paid + o.discount_cents, total_cents = s.paid
  FROM (SELECT order_id, sum(price_cents)::bigint AS paid FROM tickets GROUP BY order_id) s
 WHERE s.order_id = o.id;
UPDATE orders o SET subtotal_cents = o.amount_cents, total_cents = o.amount_cents
 WHERE o.amount_cents IS NOT NULL AND o.discount_cents = 0
   AND NOT EXISTS (SELECT 1 FROM tickets t WHERE t.order_id = o.id);

-- The backstop: a receipt that doesn't add up can't be written.
ALTER TABLE orders ADD CONSTRAINT order_total_adds_up CHECK (
    discount_cents <= subtotal_cents
    AND total_cents = subtotal_cents - discount_cents + fees_cents
                      + CASE WHEN tax_included THEN 0 ELSE tax_cents END);

-- Staff pause a code (buyers can't use it until resumed) and may make one
-- unlock a hidden price type ("Members"), shown only to buyers with it.
ALTER TABLE promo_codes
    ADD COLUMN paused boolean NOT NULL DEFAULT false,
    ADD COLUMN unlocks text CHECK (unlocks ~ '^[a-z0-9][a-z0-9_-]{0,39}$');
ALTER TABLE price_types
    ADD COLUMN hidden boolean NOT NULL DEFAULT false,
    -- Sold only in an order that also has a ticket of this type (by code).
    ADD COLUMN requires text;

-- A code the buyer applied in the hold panel: shown there with its
-- discount (and the hidden type it unlocks), and used by the purchase when
-- the purchase names none. Counted only when an order uses it.
ALTER TABLE holds ADD COLUMN promo_code_id bigint REFERENCES promo_codes ON DELETE SET NULL;

-- Staff read an unlimited code's uses from its orders.
CREATE INDEX orders_promo_code ON orders (promo_code_id) WHERE promo_code_id IS NOT NULL;
