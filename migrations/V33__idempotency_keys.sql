-- Idempotency-Key on every POST that creates something (issue 53): the
-- first answer to a key is kept here for 24 hours and given again to the
-- same request sent again (a client retrying after a lost answer, a
-- failover). Kept in PostgreSQL, so any instance answers a retry.
CREATE TABLE idempotency_keys (
    -- A digest of who asked (the API key and customer, or the session):
    -- one caller's key never answers another's request.
    principal     bytea NOT NULL,
    key           text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    -- A digest of the method, path, query and body: the same key with
    -- another request is refused, not answered with the first's answer.
    request_hash  bytea NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    -- While the first request runs: until when it counts as running (a
    -- crashed instance's claim on the key lapses, and a retry runs it).
    running_until timestamptz,
    -- Which run holds the key: only it keeps its answer or lets the key
    -- go (a run that lapsed and was taken over can't undo its successor).
    run_id        uuid,
    status        smallint CHECK (status BETWEEN 100 AND 599),
    content_type  text,
    location      text,
    body          bytea,
    PRIMARY KEY (principal, key),
    CHECK ((status IS NULL) = (running_until IS NOT NULL)),
    CHECK ((status IS NULL) = (body IS NULL))
);
-- The sweep of keys past their 24 hours.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
