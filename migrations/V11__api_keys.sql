-- Keys for server-to-server calls (Authorization: Bearer). Only a SHA-256
-- of a key is kept: a key is 160 random bits, so a fast hash suffices
-- (argon2 is for passwords people choose). A revoked key stays, so the
-- audit log can still name it.
CREATE TABLE api_keys (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9._@-]{1,64}$'),
    scope       text NOT NULL CHECK (scope IN ('read', 'sell', 'box-office')),
    key_hash    bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

-- Who did it: a member of staff, or a box-office key (never both).
ALTER TABLE audit_log ADD COLUMN api_key_id bigint REFERENCES api_keys;
ALTER TABLE audit_log ADD CONSTRAINT audit_by_staff_or_key
    CHECK (staff_id IS NULL OR api_key_id IS NULL);

-- A hold a box-office key released, so its buyer is told as for staff.
ALTER TABLE holds ADD COLUMN released_by_key bigint REFERENCES api_keys;
