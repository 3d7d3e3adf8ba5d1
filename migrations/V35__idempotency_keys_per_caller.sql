-- Idempotency keys are bounded per caller (issue 65): a caller's newest
-- keys are kept and its oldest answered ones go first, so one session or
-- key can't grow the table without end. The claim finds a caller's keys
-- past its allowance through this index, newest first.
CREATE INDEX idempotency_keys_by_caller ON idempotency_keys (principal, created_at DESC);
