-- 003: several processes on one database agree on what each used to choose alone.
--
-- shared_values: values the first process to need them chooses and every other takes (the
-- secret that signs the pages' cookies, each day's visitor salt), forgotten at forget_at if set.
--
-- visitor_sightings: unique visitors counted once across processes. Each process keeps its own
-- in-memory ledger of the visitors it has seen; a visitor it takes for new is checked here by the
-- flush that adds the counts: the first process to store the key counts the visitor, the others
-- take their count back in the same transaction. Keys are salted hashes (no IP is stored),
-- deleted two days later with the day's salt, so nothing links one day's visitors to another's.
CREATE TABLE shared_values (
  name text PRIMARY KEY,
  value text NOT NULL,
  forget_at timestamptz
);
CREATE TABLE visitor_sightings (
  day date NOT NULL,
  key bytea NOT NULL,
  PRIMARY KEY (day, key)
);
