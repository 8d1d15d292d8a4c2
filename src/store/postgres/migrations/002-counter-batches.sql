-- 002: counter flushes that can be retried without counting twice.
--
-- A flush whose COMMIT went out but whose answer was lost (the connection dropped) may or may not
-- have committed. The server retries it under the same batch id; the id, stored in the same
-- transaction as the counts, tells a batch already added from one that was not. Ids older than a
-- day are pruned: a batch still in doubt after a day of outage may be counted twice.
CREATE TABLE counter_batches (
  id text PRIMARY KEY,
  stored_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX counter_batches_stored_at_idx ON counter_batches (stored_at);
