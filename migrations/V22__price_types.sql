-- Price types (issue 47): the same seat sold as Adult, Child or Student.
-- An event with no price types sells each seat at its tier's price, as
-- before; one with price types sells each seat as one of them, at that
-- type's price for the seat's tier.
CREATE TABLE price_types (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id      bigint NOT NULL REFERENCES events ON DELETE CASCADE,
    code          text NOT NULL CHECK (code ~ '^[a-z0-9][a-z0-9_-]{0,39}$'),
    -- {"en": "Adult", "de": "Erwachsene", …}; English is the fallback.
    labels        jsonb NOT NULL CHECK (jsonb_typeof(labels) = 'object' AND labels ? 'en'),
    sort_order    integer NOT NULL,
    -- At most this many tickets of the type for the event (NULL: no limit),
    -- counted in `sold` by each purchase in its own transaction.
    quota         integer CHECK (quota >= 0),
    sold          integer NOT NULL DEFAULT 0 CHECK (sold >= 0),
    max_per_order integer CHECK (max_per_order >= 1),
    -- A type with sales can't be removed, only closed: no longer sold.
    closed        boolean NOT NULL DEFAULT false,
    UNIQUE (event_id, code),
    UNIQUE (event_id, id),
    -- The backstop: whatever the code does, a quota is never passed.
    CONSTRAINT price_type_within_quota CHECK (quota IS NULL OR sold <= quota)
);

-- A type's price for each tier it sells; a tier with no row here can't be
-- sold as the type. The composite keys keep type and tier in one event.
CREATE TABLE price_type_prices (
    event_id      bigint NOT NULL,
    price_type_id bigint NOT NULL,
    tier_id       bigint NOT NULL,
    price_cents   integer NOT NULL CHECK (price_cents >= 0),
    PRIMARY KEY (price_type_id, tier_id),
    FOREIGN KEY (event_id, price_type_id) REFERENCES price_types (event_id, id) ON DELETE CASCADE,
    FOREIGN KEY (event_id, tier_id) REFERENCES price_tiers (event_id, id) ON DELETE CASCADE
);

-- The type each sold seat was sold as (NULL: the event had no types).
ALTER TABLE order_lines ADD COLUMN price_type_id bigint REFERENCES price_types;
CREATE INDEX order_lines_price_type ON order_lines (price_type_id) WHERE price_type_id IS NOT NULL;
-- And each ticket's, kept when a refund removes its line: the ticket page,
-- the order, the door and the reports say it.
ALTER TABLE tickets ADD COLUMN price_type_id bigint REFERENCES price_types;
CREATE INDEX tickets_price_type ON tickets (price_type_id) WHERE price_type_id IS NOT NULL;
