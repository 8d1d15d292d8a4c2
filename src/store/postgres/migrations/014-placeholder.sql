-- 014: a placeholder in branch h30-bigpg only, so that 015 runs here (versions may have no gaps).
-- Another branch owns 014: at merge its file replaces this one.
SELECT 1;
