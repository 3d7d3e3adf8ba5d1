-- Staff roles, accounts that can be disabled, and passwords that can be
-- reset (which ends the account's other sessions).

-- Every account that exists now could do everything: it becomes a
-- manager. A new account names its role (the column has no default).
ALTER TABLE staff
    ADD COLUMN role text NOT NULL DEFAULT 'manager'
        CHECK (role IN ('door', 'box_office', 'manager', 'admin'));
ALTER TABLE staff ALTER COLUMN role DROP DEFAULT;

ALTER TABLE staff ADD COLUMN disabled_at timestamptz;

-- Raised by a password reset: a session signed in under an older value is
-- no longer the account's.
ALTER TABLE staff ADD COLUMN credentials_version integer NOT NULL DEFAULT 0
    CHECK (credentials_version >= 0);

-- Which account a change to accounts was about (the actor is staff_id).
ALTER TABLE audit_log ADD COLUMN subject_staff_id bigint REFERENCES staff;
