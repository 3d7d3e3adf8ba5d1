-- A door that keeps working offline: devices admit against a local door
-- list and send their admissions later. The server still admits each
-- ticket once (the same conditional UPDATE as an online scan); what a
-- device let in that the server had already admitted, or refunded, is
-- recorded here, for both gates and the report.

-- The device that admitted the ticket: a batch sent again (its answer
-- lost) is the same admission, not a second one.
ALTER TABLE tickets ADD COLUMN admitted_device text
    CHECK (admitted_device IS NULL OR length(admitted_device) BETWEEN 1 AND 64);

CREATE TABLE door_conflicts (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    bigint NOT NULL REFERENCES events,
    ticket_id   bigint NOT NULL REFERENCES tickets,
    -- admitted_twice: another gate had admitted it; refunded: it was void.
    kind        text NOT NULL CHECK (kind IN ('admitted_twice', 'refunded')),
    gate        text NOT NULL CHECK (length(gate) BETWEEN 1 AND 40),
    device      text NOT NULL CHECK (length(device) BETWEEN 1 AND 64),
    scanned_at  timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    -- A device's scan is recorded once, however often its batch is sent.
    UNIQUE (ticket_id, device, scanned_at)
);
CREATE INDEX door_conflicts_by_event ON door_conflicts (event_id, scanned_at);
