-- 016: what placing events costs PostgreSQL (a bulk create's 1,000 link.created events above all).
--
-- events.user_id referenced users (012), so each new event row had its owner looked up and locked
-- by a check of its own: for 1,000 events of one owner, 1,000 look-ups (a third of the statement's
-- time), inside the placing lock that every transaction placing events waits for. The statement
-- that places events (src/store/postgres/pg-outbox.ts, placeEventsIn) now locks each distinct owner
-- once (FOR KEY SHARE, as the check did: a user being deleted meanwhile waits for the COMMIT, one
-- deleted already is skipped with its events); the other writer, an import (replaceAll), truncates
-- every table and writes the users before their events. In place of the cascade, a statement
-- trigger of users' deletes removes their events from its transition table in one statement.
ALTER TABLE events DROP CONSTRAINT events_user_id_fkey;

DO $$
BEGIN
  EXECUTE format($f$
    CREATE FUNCTION events_of_removed_users() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      DELETE FROM %1$I.events e USING removed r WHERE e.user_id = r.id;
      RETURN NULL;
    END
    $b$;
  $f$, current_schema());
END
$$;

CREATE TRIGGER users_events_delete AFTER DELETE ON users REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION events_of_removed_users();
