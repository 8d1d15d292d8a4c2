-- 008: a placeholder, only so that this branch's 010 applies on its own (versions run without gaps).
-- Another branch brings the real 008; whoever merges both deletes this file. It does nothing.
SELECT 1;
