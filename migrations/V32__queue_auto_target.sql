-- "auto" admission's target (issue 52): how many admitted buyers an auto
-- queue keeps shopping at once. The worker that holds the queue's row moves
-- it each tick from measured claim latency and throughput (see
-- domain::queue_pace); kept here, not in one instance's memory, so any
-- instance's worker carries on from where the last left it.
ALTER TABLE event_queues
    ADD COLUMN auto_target integer CHECK (auto_target BETWEEN 1 AND 1000000),
    -- When it last moved: it moves at most once a second, however many
    -- instances' workers offer a batch.
    ADD COLUMN auto_moved_at timestamptz;
