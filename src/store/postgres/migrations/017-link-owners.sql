-- 017: what checking links' owners costs PostgreSQL (a bulk create's 1,000 links above all).
--
-- links.user_id referenced users (001), so each new link row had its owner looked up and locked by
-- a check of its own: for 1,000 links of one owner, 1,000 look-ups (~5 ms of a bulk create's ~60 ms
-- of PostgreSQL's CPU; ~0.3 ms as one statement here, and a single insert pays ~5 µs more). What the
-- foreign key did is done here once per statement:
-- - a statement trigger of the links' inserts locks each distinct owner of the new rows once (FOR
--   KEY SHARE, as the check did: a user being deleted meanwhile waits for the COMMIT) and fails the
--   statement as the foreign key did (23503) when an owner is not there;
-- - a link whose owner changes (a move of data between users) is checked by a row trigger that
--   runs only then (WHEN), as the foreign key's check ran only then;
-- - in place of the cascade, a statement trigger of users' deletes removes their links from its
--   transition table in one statement (which runs the links' own delete triggers: link_clicks).
-- An import (replaceAll) truncates every table and writes the users before their links.
ALTER TABLE links DROP CONSTRAINT links_user_id_fkey;

DO $$
BEGIN
  EXECUTE format($f$
    CREATE FUNCTION links_owners_added() RETURNS trigger LANGUAGE plpgsql AS $b$
    DECLARE
      missing bigint;
    BEGIN
      -- Each owner locked once; one that is not there (or was deleted while this waited for its lock) comes out missing.
      SELECT o.user_id INTO missing
      FROM (SELECT DISTINCT a.user_id FROM added a WHERE a.user_id IS NOT NULL) o
      LEFT JOIN LATERAL (SELECT true AS found FROM %1$I.users u WHERE u.id = o.user_id FOR KEY SHARE OF u) l ON true
      WHERE l.found IS NULL LIMIT 1;
      IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'insert or update on table "links" violates foreign key constraint "links_user_id_fkey"'
          USING ERRCODE = 'foreign_key_violation', DETAIL = format('Key (user_id)=(%%s) is not present in table "users".', missing);
      END IF;
      RETURN NULL;
    END
    $b$;

    CREATE FUNCTION links_owner_changed() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      IF NEW.user_id IS NOT NULL THEN
        PERFORM 1 FROM %1$I.users u WHERE u.id = NEW.user_id FOR KEY SHARE OF u;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'insert or update on table "links" violates foreign key constraint "links_user_id_fkey"'
            USING ERRCODE = 'foreign_key_violation', DETAIL = format('Key (user_id)=(%%s) is not present in table "users".', NEW.user_id);
        END IF;
      END IF;
      RETURN NULL;
    END
    $b$;

    CREATE FUNCTION links_of_removed_users() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      DELETE FROM %1$I.links l USING removed r WHERE l.user_id = r.id;
      RETURN NULL;
    END
    $b$;
  $f$, current_schema());
END
$$;

CREATE TRIGGER links_owners_insert AFTER INSERT ON links REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION links_owners_added();
CREATE TRIGGER links_owner_update AFTER UPDATE OF user_id ON links FOR EACH ROW WHEN (NEW.user_id IS DISTINCT FROM OLD.user_id) EXECUTE FUNCTION links_owner_changed();
CREATE TRIGGER users_links_delete AFTER DELETE ON users REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION links_of_removed_users();
