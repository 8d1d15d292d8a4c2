import { createClient } from 'redis';
import type { WindowCount, WindowCounter } from '../store/store.ts';

// One round trip, atomic: a key holds its window's end (e) and count (n); ARGV[3] hits at once. A hit for a later window
// starts it; a hit for the same or an earlier one (a process whose clock is behind) counts in the
// stored window. The key expires a second after its window ends (PEXPIRE: Redis's clock is not ours).
const HIT = `
local e = tonumber(redis.call('HGET', KEYS[1], 'e') or '0')
local n = tonumber(ARGV[3])
if tonumber(ARGV[1]) > e then
  redis.call('HSET', KEYS[1], 'e', ARGV[1], 'n', n)
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {n, ARGV[1]}
end
return {redis.call('HINCRBY', KEYS[1], 'n', n), tostring(e)}`;

/** Where a Redis is, for messages: host:port, never the password. */
export function describeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '6379'}`;
  } catch {
    return '(an unparsable Redis URL)';
  }
}

/**
 * Rate-limit windows in Redis (or Valkey), under `prefix`: one script per hit. Commands are not
 * queued while the connection is down (they fail at once, and the limiter applies
 * RATE_LIMIT_ON_ERROR); the client reconnects by itself, every 2 s at most.
 */
export class RedisWindows implements WindowCounter {
  private readonly client;

  private constructor(url: string, private readonly prefix: string) {
    this.client = createClient({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000) },
    });
    // Every failed reconnect is an 'error' event: the limiter logs the outage once, not these.
    this.client.on('error', () => {});
  }

  /** Connects to `url`, waiting at most `waitMs` for the first connection (the client keeps trying after). */
  static async open(url: string, prefix: string, waitMs = 2000): Promise<RedisWindows> {
    const windows = new RedisWindows(url, prefix);
    let timer: NodeJS.Timeout | undefined;
    const connecting = windows.client.connect().catch(() => {});
    await Promise.race([connecting, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    return windows;
  }

  /** Counts `n` hits of `key` in the window ending at `endsAt`. */
  async hit(key: string, endsAt: number, n = 1): Promise<WindowCount> {
    const ttl = Math.max(1, endsAt - Date.now()) + 1000;
    const reply = (await this.client.eval(HIT, { keys: [this.prefix + key], arguments: [String(endsAt), String(ttl), String(n)] })) as [number, string];
    return { count: Number(reply[0]), endsAt: Number(reply[1]) };
  }

  /** Drops the connection (or stops trying to make one); called once the server answers no more requests. */
  close(): void {
    try {
      this.client.destroy();
    } catch {
      // already closed
    }
  }
}
