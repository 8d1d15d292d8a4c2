-- 003: unique visitors counted once across every process sharing the database.
--
-- Each process keeps its own in-memory ledger of the visitors it has seen; a visitor it takes for
-- new is checked here by the flush that adds the counts: the first process to store the key
-- counts the visitor, the others take their count back in the same transaction. Keys are salted
-- hashes (no IP is stored); the salt of a day is chosen by the first process that needs it. Both
-- are deleted two days later, so nothing links one day's visitors to another's after that.
CREATE TABLE visitor_salts (
  day date PRIMARY KEY,
  salt text NOT NULL
);
CREATE TABLE visitor_sightings (
  day date NOT NULL,
  key bytea NOT NULL,
  PRIMARY KEY (day, key)
);
