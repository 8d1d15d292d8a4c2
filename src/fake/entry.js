// The package entry of `shortlink-analytics-server/fake` for plain Node: loads the TypeScript
// sources through tsx (a dependency of this package), so consumers need no loader of their own.
import { tsImport } from 'tsx/esm/api';

const fake = await tsImport('./index.ts', import.meta.url);

export const { startFakeServer, FAKE_ADMIN_KEY, FAKE_NOW, FixtureError } = fake;
