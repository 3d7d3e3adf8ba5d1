-- The offer on events that take payment (issue 47): an order waiting for
-- its money keeps, per reserved seat, the type it was priced as and the
-- discount its code took, and the charges it was asked to pay.
--
-- A checkout counts its types' quotas and its code's use at once, as a
-- purchase does: a waiting order holds its places and its use until it is
-- paid (they become its tickets'), or until it lapses or is refunded
-- unfulfilled (they are given back).

ALTER TABLE order_reserved_seats
    ADD COLUMN price_type_id bigint REFERENCES price_types,
    ADD COLUMN discount_cents integer NOT NULL DEFAULT 0 CHECK (discount_cents >= 0);

-- The booking fee per ticket as it was at checkout. Set, it says the
-- order's charges (this fee, and the order's tax_rate, tax_included and
-- fees_refundable) were fixed when it was priced, and its tickets are
-- issued with them whatever staff changed since; NULL (an order sold at
-- once), its tickets take the event's charges as they are issued.
ALTER TABLE orders
    ADD COLUMN booking_fee_cents integer CHECK (booking_fee_cents >= 0);
-- Orders waiting for their money (or lapsed, whose payment may still come)
-- were asked their seats' prices alone: that is what they keep.
UPDATE orders SET booking_fee_cents = 0, tax_rate = NULL
 WHERE status IN ('pending_payment', 'lapsed');

-- General-admission places sold as price types: one line per place, as
-- `order_lines` has one per seat, written when the order is sold or
-- checked out. An order with such lines is ticketed from them; one without
-- (its event sells no types and it used no code) from its `ga_tickets` at
-- their tiers' prices.
CREATE TABLE order_ga_lines (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_id       uuid NOT NULL REFERENCES orders,
    area_id        bigint NOT NULL REFERENCES ga_areas,
    price_type_id  bigint REFERENCES price_types,
    -- What the buyer pays for the place: its type's price less its discount.
    price_cents    integer NOT NULL CHECK (price_cents >= 0),
    discount_cents integer NOT NULL DEFAULT 0 CHECK (discount_cents >= 0)
);
CREATE INDEX order_ga_lines_by_order ON order_ga_lines (order_id);
CREATE INDEX order_ga_lines_by_type ON order_ga_lines (price_type_id)
    WHERE price_type_id IS NOT NULL;

-- Every place an order was priced as a type, seat or GA: what a waiting
-- order's checkout counted against the types' quotas.
CREATE VIEW order_typed_places AS
    SELECT order_id, price_type_id FROM order_reserved_seats WHERE price_type_id IS NOT NULL
    UNION ALL
    SELECT order_id, price_type_id FROM order_ga_lines WHERE price_type_id IS NOT NULL;
