import { createHmac, timingSafeEqual } from 'node:crypto';

/** Signs and checks the cookie that remembers a link's (or a file's) password was given, without storing the password in it. */
export class PassCookies {
  constructor(
    private readonly secret: Buffer,
    /** The cookie names' prefix: `lp` for links, `fp` for files (each kind with a key of its own). */
    private readonly prefix = 'lp',
    readonly maxAgeSeconds = 24 * 3600,
  ) {}

  /** The cookie name for a link (or file). */
  name(linkId: number): string {
    return `${this.prefix}_${linkId}`;
  }

  /** A value valid until `now + maxAge`; bound to the password's hash so changing the password voids it. */
  issue(linkId: number, passwordHash: string, now: number): string {
    const exp = Math.floor(now / 1000) + this.maxAgeSeconds;
    return `${exp}.${this.mac(linkId, passwordHash, exp)}`;
  }

  /** Whether a cookie value is authentic and unexpired. */
  valid(value: string | undefined, linkId: number, passwordHash: string, now: number): boolean {
    const [exp, mac] = (value ?? '').split('.');
    if (!exp || !mac || !/^\d+$/.test(exp) || Number(exp) * 1000 < now) return false;
    const want = Buffer.from(this.mac(linkId, passwordHash, Number(exp)), 'base64url');
    const got = Buffer.from(mac, 'base64url');
    return want.length === got.length && timingSafeEqual(want, got);
  }

  private mac(linkId: number, passwordHash: string, exp: number): string {
    return createHmac('sha256', this.secret).update(`${linkId}.${exp}.${passwordHash}`).digest('base64url');
  }
}
