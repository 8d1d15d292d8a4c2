-- 008: the realtime window of the statistics, and what their retention needs.
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

-- STATS_RETENTION_DAYS and STATS_HOURLY_DAYS delete or thin the days before a date.
CREATE INDEX stat_days_day_idx ON stat_days (day);
