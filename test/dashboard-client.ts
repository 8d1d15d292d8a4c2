import type { Hono } from 'hono';

/** One browser of the dashboard tests over app.request: its cookies, the last page's form token, form posts. */
export class DashClient {
  readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(
    private readonly app: Hono<any>, // any: the app's environment type does not matter to a client
    private readonly headers: Record<string, string> = {},
  ) {}

  private take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === '' || /Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  /** A GET; the page's form token is kept for the next post. */
  async get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; res: Response }> {
    const res = await this.app.request(path, { headers: { ...this.headers, ...this.cookieHeader(), ...headers } });
    this.take(res);
    const text = res.headers.get('content-type')?.startsWith('text/html') ? await res.text() : '';
    const token = /name="csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return { status: res.status, text, res };
  }

  /** A form post (the kept form token unless `csrf` says otherwise; null: none). */
  async post(path: string, fields: Record<string, string | string[]> = {}, opts: { csrf?: string | null; headers?: Record<string, string> } = {}): Promise<{ status: number; text: string; location: string | null; res: Response }> {
    const body = new URLSearchParams();
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token !== null) body.append('csrf', token);
    for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    // As a browser whose script answers OK to a form's question (ask-first.tsx); `confirmed: ''` posts as without the script.
    if (!('confirmed' in fields)) body.append('confirmed', 'yes');
    const res = await this.app.request(path, { method: 'POST', headers: { ...this.headers, ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...opts.headers }, body: body.toString() });
    this.take(res);
    const text = await res.text();
    return { status: res.status, text, location: res.headers.get('location'), res };
  }

  /** A multipart form post with files, as a form with a file box sends it (the kept form token). */
  async upload(path: string, fields: Record<string, string>, files: Record<string, { name: string; type: string; bytes: Uint8Array }>): Promise<{ status: number; text: string; location: string | null; res: Response }> {
    const body = new FormData();
    body.append('csrf', this.csrf);
    for (const [k, v] of Object.entries(fields)) body.append(k, v);
    for (const [k, f] of Object.entries(files)) body.append(k, new File([f.bytes as Uint8Array<ArrayBuffer>], f.name, { type: f.type }));
    const res = await this.app.request(path, { method: 'POST', headers: { ...this.headers, ...this.cookieHeader() }, body });
    this.take(res);
    const text = await res.text();
    return { status: res.status, text, location: res.headers.get('location'), res };
  }

  /** Signs in through the form; the answer of the post. */
  async signIn(login: string, password: string) {
    await this.get('/app/login');
    return this.post('/app/login', { login, password });
  }
}
