/**
 * Loads TypeScript in the test processes of `npm test` (--import), in place of tsx: the same esbuild
 * transform, without tsx's own resolution and CommonJS hooks, which cost each process ~0.25 s of CPU
 * over this (over a hundred test processes a run). A file run alone still uses `--import tsx`.
 */
import { register } from 'node:module';

// Stack traces and assertion locations in the .ts lines, as under tsx.
process.setSourceMapsEnabled(true);
register('./ts-hooks.mjs', import.meta.url);
