#!/usr/bin/env node
// The `shortlink-server` command (package.json "bin"): runs src/main.ts through tsx, a runtime
// dependency, in this same process, so signals reach the server directly.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
