-- The waiting room (issue 52): an event's queue, and one row per buyer who
-- joined it. PostgreSQL is its only state; instances keep a copy of the
-- figures in memory (read once a second) so a waiting buyer's poll runs no
-- statement at all.
CREATE TABLE event_queues (
    event_id          bigint PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
    opens_at          timestamptz NOT NULL,
    -- NULL: "auto", admitting to keep a target number of buyers shopping.
    admit_per_minute  integer CHECK (admit_per_minute BETWEEN 1 AND 1000000),
    window_minutes    integer NOT NULL CHECK (window_minutes BETWEEN 1 AND 1440),
    proof_of_work     boolean NOT NULL DEFAULT false,
    -- Leading zero bits a proof of work's hash needs.
    pow_bits          integer NOT NULL DEFAULT 16 CHECK (pow_bits BETWEEN 0 AND 32),
    admitted          bigint NOT NULL DEFAULT 0 CHECK (admitted >= 0),
    -- The admission allowance is spent up to this time (a token bucket
    -- kept as a clock): a batch of k moves it k minutes / rate on.
    admit_clock       timestamptz,
    updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Positions come from one sequence: joining is this nextval and one insert.
CREATE SEQUENCE queue_join_seq;

CREATE TABLE queue_joins (
    id            uuid PRIMARY KEY,
    event_id      bigint NOT NULL REFERENCES event_queues (event_id) ON DELETE CASCADE,
    seq           bigint NOT NULL,
    -- Before the opening: true. Those are admitted first, in the order of
    -- a random key drawn at the join (uniformly random among themselves,
    -- whenever they came); later arrivals after them in join order.
    early         boolean NOT NULL,
    order_key     bigint NOT NULL,
    joined_at     timestamptz NOT NULL DEFAULT now(),
    admitted_at   timestamptz,
    admitted_until timestamptz,
    -- The proof of work's challenge, once: a second join with it is refused.
    pow_challenge uuid UNIQUE,
    -- The buyer whose claim first used the admission: it admits them
    -- alone, so one ticket passed round a crowd holds for one buyer.
    buyer_id      uuid,
    -- Instances read new joins by transaction, as the live feed reads seats.
    xid           xid8 NOT NULL DEFAULT pg_current_xact_id(),
    CHECK ((admitted_at IS NULL) = (admitted_until IS NULL)),
    CHECK (early = (order_key < 0)),
    CHECK (early OR order_key = seq)
);
CREATE INDEX queue_joins_waiting ON queue_joins (event_id, order_key) WHERE admitted_at IS NULL;
CREATE INDEX queue_joins_by_xid ON queue_joins (xid);
-- Buyers shopping now, which "auto" keeps near its target.
CREATE INDEX queue_joins_shopping ON queue_joins (event_id, admitted_until) WHERE admitted_until IS NOT NULL;
