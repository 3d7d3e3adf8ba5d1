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
