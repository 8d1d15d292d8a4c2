import { Hono } from 'hono';
import type { KeyIndex } from '../auth/key-index.ts';
import type { AppEnv } from '../http/app-env.ts';
import type { PasswordAttempts } from '../http/password-attempts.ts';
import type { Limiter } from '../http/rate-limit.ts';
import type { Services } from '../resources/define.ts';
import { keyScreens } from './account/keys.tsx';
import { adminScreens } from './admin/users.tsx';
import { accountRoutes } from './account/routes.tsx';
import { webhookScreens } from './account/webhooks.tsx';
import { screen } from './guard.ts';
import type { Dashboard } from './guard.ts';
import { linkScreens } from './links/routes.tsx';
import { resourceAreas } from './resources/rows.ts';
import { DashboardQrImages } from './qr-image.tsx';
import { qrScreens } from './qrs/routes.tsx';
import { bioScreens } from './bios/routes.tsx';
import { fileScreens } from './files/routes.tsx';
import { DashboardSessions } from './sessions.ts';
import { signInRoutes } from './sign-in.tsx';
import { websiteScreens } from './websites/routes.tsx';

/**
 * The dashboard under /app (DASHBOARD on): one area per screen, each a route file whose loaders go
 * through the services the API's routes use. A new screen is one more area here and one NAV entry.
 */
export function dashboardAreas(s: Services, parts: { attempts: PasswordAttempts; keys: KeyIndex; failures: Limiter | null; limiter: Limiter | null; pageLimiter: Limiter | null }): Hono<AppEnv>[] {
  if (!s.config.dashboard) return [];
  const d: Dashboard = { s, sessions: new DashboardSessions(s), qr: new DashboardQrImages(s), ...parts };
  const home = new Hono<AppEnv>();
  home.get(
    '/app',
    screen(d, async (c) => c.redirect('/app/links', 302)),
  );
  return [home, signInRoutes(d), accountRoutes(d), keyScreens(d), webhookScreens(d), adminScreens(d), linkScreens(d), websiteScreens(d), qrScreens(d), bioScreens(d), fileScreens(d), ...resourceAreas(d)];
}
