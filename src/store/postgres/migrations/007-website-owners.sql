-- 007: several users may track one domain; one website of it receives the domain's events.
--
-- A website's domain was unique across the server: the first user to add it took its events, and
-- the refusal told everyone else that someone tracks it. Now each user may have one website per
-- domain (k_own_domain, "<user id>\n<domain>"), and the website that receives the domain's events
-- is the one whose k_receiving holds the domain: at most one, which the unique constraint keeps
-- so while two proofs of ownership race. k_domain stays as a plain index: whether a domain has any
-- website at all (a new one receives only then), without reading the table.
ALTER TABLE websites DROP CONSTRAINT websites_k_domain_key;
CREATE INDEX websites_k_domain_idx ON websites (k_domain, id);
ALTER TABLE websites ADD COLUMN k_own_domain text CONSTRAINT websites_k_own_domain_key UNIQUE;
ALTER TABLE websites ADD COLUMN k_receiving text CONSTRAINT websites_k_receiving_key UNIQUE;

-- Every website stored so far was its domain's only one, and received its events (a record
-- without `receives` still does, by the same rule the server's key applies).
UPDATE websites SET k_own_domain = user_id::text || E'\n' || k_domain, k_receiving = k_domain;
