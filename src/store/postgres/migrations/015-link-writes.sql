-- 015: what writing links costs PostgreSQL (a bulk create of 1,000 links above all).
--
-- links_data_idx (001) indexed every path of every link's record (GIN jsonb_path_ops, about 30
-- entries a link) for the few fields that are ever filtered on: a campaign's, domain's, splash
-- page's or overlay's links (a list filter, the clean-up after one of them is deleted, a move of a
-- domain's links), a channel's or pixel's (`holds`), and the same-link check of a protected create
-- (url, type, ... of the owner's protected links). In its place each of those fields has an index of
-- its own, partial: only the links where the field holds a value (or a list that is not empty), so
-- a link with none of them (most links) adds no entry to any of them. The store writes these
-- conditions as the indexes are written, with their predicates (src/store/postgres/query-sql.ts,
-- TablePlan.fieldIndexes in tables.ts): keep the two the same. The url is indexed for protected
-- links only: the same-link check of a link without a password reads k_same.
DROP INDEX links_data_idx;
CREATE INDEX links_campaign_idx ON links (user_id, (data -> 'campaign')) WHERE (data ->> 'campaign') IS NOT NULL;
CREATE INDEX links_domain_id_idx ON links (user_id, (data -> 'domainId')) WHERE (data ->> 'domainId') IS NOT NULL;
CREATE INDEX links_splash_id_idx ON links (user_id, (data -> 'splashId')) WHERE (data ->> 'splashId') IS NOT NULL;
CREATE INDEX links_overlay_id_idx ON links (user_id, (data -> 'overlayId')) WHERE (data ->> 'overlayId') IS NOT NULL;
CREATE INDEX links_channels_idx ON links USING gin ((data -> 'channels') jsonb_path_ops) WHERE (data -> 'channels') <> '[]'::jsonb;
CREATE INDEX links_pixels_idx ON links USING gin ((data -> 'pixels') jsonb_path_ops) WHERE (data -> 'pixels') <> '[]'::jsonb;
CREATE INDEX links_protected_url_idx ON links (user_id, (data -> 'url')) WHERE (data ->> 'password') IS NOT NULL;
-- The planner keeps no statistics of a partial index's expressions: without these it guessed that
-- any value of a field matches 0.5% of the links, and walked the primary key in search of a
-- campaign's first 25 links rather than reading its index. Read now, so a table already large has
-- them at once (ANALYZE reads a sample of a fixed size, whatever the table's).
CREATE STATISTICS links_campaign_stats ON (data -> 'campaign') FROM links;
CREATE STATISTICS links_domain_id_stats ON (data -> 'domainId') FROM links;
CREATE STATISTICS links_splash_id_stats ON (data -> 'splashId') FROM links;
CREATE STATISTICS links_overlay_id_stats ON (data -> 'overlayId') FROM links;
CREATE STATISTICS links_channels_stats ON (data -> 'channels') FROM links;
CREATE STATISTICS links_pixels_stats ON (data -> 'pixels') FROM links;
ANALYZE links;

-- link_clicks (014): a new link's row is made by a statement trigger of the links insert, and went
-- with its link by a foreign key, checked once per new row (1,000 look-ups of a link the same
-- statement had just inserted, for a bulk create) for the cascade alone. Only these triggers write
-- the table: a row is made with its link, in the link's statement, so it cannot refer to a link
-- that is not there. Here a statement trigger of the links' deletes (a link's own, a user's cascade,
-- a removal of many) deletes their rows instead, from its transition table in one statement, and
-- a TRUNCATE of links names link_clicks too (replaceAll). The initial total of the new links is
-- read with one join instead of one subquery per link.
ALTER TABLE link_clicks DROP CONSTRAINT link_clicks_link_id_fkey;

DO $$
BEGIN
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION link_clicks_links_added() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      INSERT INTO %1$I.link_clicks (link_id, user_id, clicks)
      SELECT a.id, a.user_id, coalesce(s.n, 0)
      FROM added a LEFT JOIN (
        SELECT d.subject, sum(c.n) AS n FROM %1$I.stat_days d JOIN %1$I.stat_counts c ON c.day_id = d.id AND c.metric = 'clicks' AND c.is_total
        WHERE d.subject IN (SELECT 'link:' || id FROM added) GROUP BY d.subject
      ) s ON s.subject = 'link:' || a.id;
      RETURN NULL;
    END
    $b$;

    CREATE FUNCTION link_clicks_links_removed() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      DELETE FROM %1$I.link_clicks lc USING removed r WHERE lc.link_id = r.id;
      RETURN NULL;
    END
    $b$;
  $f$, current_schema());
END
$$;

CREATE TRIGGER links_link_clicks_delete AFTER DELETE ON links REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION link_clicks_links_removed();
