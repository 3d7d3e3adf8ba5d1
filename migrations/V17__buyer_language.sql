-- The language an order was bought in (issue 31): its e-mail is written in
-- it, whenever the outbox sends it, by whichever instance.
ALTER TABLE orders ADD COLUMN lang text NOT NULL DEFAULT 'en'
    CHECK (lang IN ('en', 'de', 'fr', 'es'));
