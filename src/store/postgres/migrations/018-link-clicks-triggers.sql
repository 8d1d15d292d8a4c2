-- 018: what keeping the links' click totals (014) cost each statistics flush.
--
-- The statement triggers of stat_counts joined their transition tables to stat_days, and the
-- update's two transition tables to each other, on no index: the planner has no row counts for a
-- transition table (it guesses one row) and chose nested loops, so a flush's statement of n count
-- rows over d days did about n x d (inserts) or n x n (updates) row visits: ~300 ms for 3,750 rows
-- over 2,000 days, seconds for a busy second's 40,000. Each trigger now sums its clicks per day
-- first, in one pass over its transition table(s), and then finds each day's row by its primary key
-- (a LATERAL subquery kept apart by OFFSET 0, so one index probe a day whatever the guess: without
-- it the planner flattened the subquery and put the days outside again). An update's change is what the days' new
-- rows hold less what their old rows held (two sums, no join); a row moved to another day counts
-- on its new day and leaves its old one.
DO $$
BEGIN
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION link_clicks_counts_added() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      UPDATE %1$I.link_clicks lc SET clicks = lc.clicks + x.n
      FROM (SELECT substr(d.subject, 6)::bigint AS l, sum(a.n) AS n
            FROM (SELECT day_id, sum(n) AS n FROM added WHERE is_total AND metric = 'clicks' GROUP BY day_id) a
            CROSS JOIN LATERAL (SELECT s.subject FROM %1$I.stat_days s WHERE s.id = a.day_id OFFSET 0) d
            WHERE d.subject ~ '^link:[1-9][0-9]{0,17}$' GROUP BY 1) x
      WHERE lc.link_id = x.l AND x.n <> 0;
      RETURN NULL;
    END
    $b$;

    CREATE OR REPLACE FUNCTION link_clicks_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      UPDATE %1$I.link_clicks lc SET clicks = lc.clicks + x.n
      FROM (SELECT substr(d.subject, 6)::bigint AS l, sum(c.n) AS n
            FROM (SELECT day_id, sum(n) AS n FROM (
                    SELECT day_id, n FROM after_rows WHERE is_total AND metric = 'clicks'
                    UNION ALL
                    SELECT day_id, -n FROM before_rows WHERE is_total AND metric = 'clicks'
                  ) v GROUP BY day_id) c
            CROSS JOIN LATERAL (SELECT s.subject FROM %1$I.stat_days s WHERE s.id = c.day_id OFFSET 0) d
            WHERE d.subject ~ '^link:[1-9][0-9]{0,17}$' GROUP BY 1) x
      WHERE lc.link_id = x.l AND x.n <> 0;
      RETURN NULL;
    END
    $b$;

    CREATE OR REPLACE FUNCTION link_clicks_counts_removed() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      UPDATE %1$I.link_clicks lc SET clicks = lc.clicks - x.n
      FROM (SELECT substr(d.subject, 6)::bigint AS l, sum(r.n) AS n
            FROM (SELECT day_id, sum(n) AS n FROM removed WHERE is_total AND metric = 'clicks' GROUP BY day_id) r
            CROSS JOIN LATERAL (SELECT s.subject FROM %1$I.stat_days s WHERE s.id = r.day_id OFFSET 0) d
            WHERE d.subject ~ '^link:[1-9][0-9]{0,17}$' GROUP BY 1) x
      WHERE lc.link_id = x.l AND x.n <> 0;
      RETURN NULL;
    END
    $b$;
  $f$, current_schema());
END
$$;
