-- 010: the realtime window of the statistics, and what their retention needs.
--
-- realtime_visitors, realtime_pages: the last minutes of each subject's pageviews (GET
-- /api/v1/stats/{id}/realtime), written by every process's statistics flush and read by all, so the
-- view is the same whichever process answers. Minutes are whole minutes since the Unix epoch, from
-- the servers' clock. A visitor is a salted hash (the salt agreed in shared_values and forgotten
-- with its day), never an IP, stored once per minute; pages are counted per flush (`batch`), so a
-- flush retried after an unanswered COMMIT adds nothing twice. Rows older than a few minutes are
-- deleted by the flushes now and then. UNLOGGED: a crash of PostgreSQL empties the realtime view,
-- which shows only these minutes; the daily counters are not here.
CREATE UNLOGGED TABLE realtime_visitors (
  subject text NOT NULL,
  minute bigint NOT NULL,
  visitor bytea NOT NULL,
  PRIMARY KEY (subject, minute, visitor)
);
CREATE UNLOGGED TABLE realtime_pages (
  subject text NOT NULL,
  minute bigint NOT NULL,
  batch text NOT NULL,
  page text NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (subject, minute, batch, page)
);

-- Retention: STATS_RETENTION_DAYS deletes the days before a date (found through stat_days_day_idx);
-- STATS_HOURLY_DAYS removes the hourly metrics of the days before another, once per day row:
-- `thinned` marks the rows done, and the partial index holds only the others, so a pruning run
-- reads the days it has to thin and never again the years it thinned before.
CREATE INDEX stat_days_day_idx ON stat_days (day);
ALTER TABLE stat_days ADD COLUMN thinned boolean NOT NULL DEFAULT false;
CREATE INDEX stat_days_unthinned_idx ON stat_days (day) WHERE NOT thinned;
