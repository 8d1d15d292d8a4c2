-- 006: how many records each owner has in each table, kept by the database as records come and go.
--
-- Every list page answers its total. With `count(*)` that total cost a scan of all the owner's
-- rows: ~120 ms for an owner of 1,000,000 links, on every page. Here the total is the sum of a few
-- rows of kept_counts instead. Writers never update a shared row (that would make every create of
-- an owner wait for the previous one's COMMIT): each INSERT or DELETE statement adds one row per
-- owner it touched, +n or -n, from a statement trigger in the same transaction, so the sum is
-- exactly as current as the records any reader sees. The server folds an owner's rows into one
-- a second after it writes (`foldKeptCounts`, kept-counts.ts); a fold replaces rows by their sum in one statement, so no
-- reader sees it half done.
--
-- owner is the record's user_id, 0 for a record without one. Nothing references users: a user's
-- removal cascades to its records, whose triggers then add their -n rows for an owner that is gone.
CREATE TABLE kept_counts (
  tbl text NOT NULL,
  owner bigint NOT NULL,
  n bigint NOT NULL
);
CREATE INDEX kept_counts_tbl_owner_idx ON kept_counts (tbl, owner);

-- The functions name kept_counts in their own schema, written into their text when this migration
-- runs (so a pg_dump restore, which runs with an empty search_path, finds it), in static SQL: a
-- statement PL/pgSQL plans once per connection. Built with format() and EXECUTE'd per call
-- instead, the trigger cost ~80 µs of PostgreSQL's CPU per insert; this way it costs ~18 µs.
DO $$
BEGIN
  EXECUTE format($f$
    CREATE FUNCTION kept_counts_added() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      INSERT INTO %1$I.kept_counts (tbl, owner, n) SELECT TG_TABLE_NAME, coalesce(user_id, 0) AS o, count(*) FROM added GROUP BY o;
      RETURN NULL;
    END
    $b$;

    CREATE FUNCTION kept_counts_removed() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      INSERT INTO %1$I.kept_counts (tbl, owner, n) SELECT TG_TABLE_NAME, coalesce(user_id, 0) AS o, -count(*) FROM removed GROUP BY o;
      RETURN NULL;
    END
    $b$;

    -- A record given to another owner (rare: row by row, and only when user_id changes).
    CREATE FUNCTION kept_counts_moved() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      INSERT INTO %1$I.kept_counts (tbl, owner, n) VALUES (TG_TABLE_NAME, coalesce(OLD.user_id, 0), -1), (TG_TABLE_NAME, coalesce(NEW.user_id, 0), 1);
      RETURN NULL;
    END
    $b$;
  $f$, current_schema());
END
$$;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['users', 'links', 'qrs', 'pixels', 'campaigns', 'channels', 'bios', 'domains', 'overlays', 'splash', 'websites', 'files'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_added()', t || '_counted_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_removed()', t || '_counted_delete', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE OF user_id ON %I FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id) EXECUTE FUNCTION kept_counts_moved()', t || '_counted_move', t);
    -- The records already there.
    EXECUTE format('INSERT INTO kept_counts (tbl, owner, n) SELECT %L, coalesce(user_id, 0) AS o, count(*) FROM %I GROUP BY o', t, t);
  END LOOP;
END
$$;
