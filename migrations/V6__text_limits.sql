-- The limits the rules check before any SQL (src/domain/text.rs), said
-- again by the schema, so the two can't drift apart unnoticed: a value the
-- rules let through is one these accept. NOT VALID: rows already stored are
-- left alone; every new or changed row is checked.
ALTER TABLE sections
    ADD CONSTRAINT section_name_plain
        CHECK (length(name) <= 200 AND name !~ '[[:cntrl:]]') NOT VALID;
ALTER TABLE price_tiers
    ADD CONSTRAINT tier_code_plain
        CHECK (length(code) <= 32 AND code !~ '[[:cntrl:]]') NOT VALID,
    ADD CONSTRAINT tier_name_plain
        CHECK (length(name) <= 200 AND name !~ '[[:cntrl:]]') NOT VALID;
ALTER TABLE seats
    ADD CONSTRAINT seat_labels_plain
        CHECK (length(row_label) <= 16 AND length(seat_label) <= 16
               AND row_label !~ '[[:cntrl:]]' AND seat_label !~ '[[:cntrl:]]') NOT VALID;
ALTER TABLE ga_areas
    ADD CONSTRAINT ga_area_name_plain
        CHECK (length(name) <= 200 AND name !~ '[[:cntrl:]]') NOT VALID;
ALTER TABLE venues
    ADD CONSTRAINT venue_name_plain CHECK (name !~ '[[:cntrl:]]') NOT VALID,
    ADD CONSTRAINT venue_ga_places_bounded CHECK (ga_capacity <= 1000000) NOT VALID;
ALTER TABLE events
    ADD CONSTRAINT event_names_plain
        CHECK (length(venue) <= 200 AND name !~ '[[:cntrl:]]' AND venue !~ '[[:cntrl:]]') NOT VALID;
