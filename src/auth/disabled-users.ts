import type { Store } from '../store/store.ts';

/** What a disabled account's keys, sign-ins and sessions are answered (the admin's reason is never shown to the user). */
export const ACCOUNT_DISABLED = 'This account has been disabled. Contact the administrator of this server.';

/** Whether the admin disabled this user. */
export const isDisabled = (u: { disabled?: boolean } | undefined | null): boolean => u?.disabled === true;

/** How many users' states a process keeps at most (a number and a flag each): the owners of the links being visited. */
export const MAX_KNOWN_USERS = 50_000;

/**
 * Whether the owners of visited links (and files, bio and campaign pages) are disabled, kept per
 * process so that a redirect whose link is at hand is still answered in one synchronous step.
 *
 * Invalidation: every state is forgotten whenever the users collection's version changes: on any
 * write to users here, or (PostgreSQL) in any other process sharing the schema, heard through the
 * change feed (and, while it cannot be heard, every 0.5 s); an answer read while users changed is
 * not kept. Bound: MAX_KNOWN_USERS states, all dropped at once when full.
 */
export class DisabledUsers {
  private known = new Map<number, boolean>();
  private builtAt = -1;

  constructor(private readonly store: Store) {}

  /** Whether `userId` is disabled, when this process knows without asking the store; else undefined. */
  atHand(userId: number): boolean | undefined {
    const version = this.store.version('users');
    if (version !== this.builtAt) {
      this.known = new Map();
      this.builtAt = version;
    }
    return this.known.get(userId);
  }

  /** Whether `userId` is disabled (a user that is gone is not: its records went with it). */
  async check(userId: number): Promise<boolean> {
    const kept = this.atHand(userId);
    if (kept !== undefined) return kept;
    const version = this.builtAt;
    const user = await this.store.get<{ id: number; disabled?: boolean }>('users', userId);
    const disabled = isDisabled(user);
    if (this.store.version('users') === version) {
      if (this.known.size >= MAX_KNOWN_USERS) this.known = new Map();
      this.known.set(userId, disabled);
    }
    return disabled;
  }
}
