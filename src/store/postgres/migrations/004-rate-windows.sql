-- 003: rate-limit windows every server process on the database counts in.
--
-- One row per limited key (a key's requests, an IP's failed authentications or events), holding
-- the count of its current fixed window and when that window ends. UNLOGGED: a crash of
-- PostgreSQL empties it, which only forgives the requests of one window; in exchange a hit costs
-- no WAL. No index but the key's: rows of finished windows are deleted by a scan now and then, and
-- the table holds one row per key active in a window.
CREATE UNLOGGED TABLE rate_windows (
  key text PRIMARY KEY,
  ends_at bigint NOT NULL,
  n integer NOT NULL
);
