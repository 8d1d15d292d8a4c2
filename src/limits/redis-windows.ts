import type { WindowCount, WindowCounter } from '../store/store.ts';
import { LiveRedis } from './live-redis.ts';

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

// Takes back ARGV[2] unused hits, only from the window that ends at ARGV[1], never below 0.
const GIVE_BACK = `
if redis.call('HGET', KEYS[1], 'e') ~= ARGV[1] then return 0 end
local n = redis.call('HINCRBY', KEYS[1], 'n', -tonumber(ARGV[2]))
if n < 0 then redis.call('HSET', KEYS[1], 'n', 0) end
return 1`;

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
 * Rate-limit windows in Redis (or Valkey), under `prefix`: one script per hit, on a connection that
 * proves it is alive (live-redis.ts: replaced when it stays silent, so an outage ends within about
 * two seconds of the network's return). Commands are not queued while the connection is down (they
 * fail at once, and the limiter applies RATE_LIMIT_ON_ERROR).
 */
export class RedisWindows implements WindowCounter {
  private constructor(
    private readonly redis: LiveRedis,
    private readonly prefix: string,
  ) {}

  /** Connects to `url`, waiting at most `waitMs` for the first connection (connecting goes on after). */
  static async open(url: string, prefix: string, waitMs = 2000): Promise<RedisWindows> {
    const redis = new LiveRedis(url);
    await redis.waitReady(waitMs);
    return new RedisWindows(redis, prefix);
  }

  /** Counts `n` hits of `key` in the window ending at `endsAt`. */
  async hit(key: string, endsAt: number, n = 1): Promise<WindowCount> {
    const ttl = Math.max(1, endsAt - Date.now()) + 1000;
    const reply = (await this.redis.send((c) => c.eval(HIT, { keys: [this.prefix + key], arguments: [String(endsAt), String(ttl), String(n)] }))) as [number, string];
    return { count: Number(reply[0]), endsAt: Number(reply[1]) };
  }

  /** Takes back `n` unused hits of `key`'s window ending at `endsAt`, in one script. */
  async giveBack(key: string, endsAt: number, n: number): Promise<void> {
    await this.redis.send((c) => c.eval(GIVE_BACK, { keys: [this.prefix + key], arguments: [String(endsAt), String(n)] }));
  }

  /** Resolves when Redis answers a PING (for /ready). */
  ping(): Promise<void> {
    return this.redis.ping();
  }

  /** Drops the connection (or stops trying to make one); called once the server answers no more requests. */
  close(): void {
    this.redis.close();
  }
}
