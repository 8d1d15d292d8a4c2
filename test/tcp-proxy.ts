import { createServer, Socket } from 'node:net';
import type { Server } from 'node:net';

/**
 * A TCP forwarder on 127.0.0.1 that a test controls, put between a server and PostgreSQL so the
 * database can "go away" and come back without touching the machine's PostgreSQL.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  /** Each forwarded connection: silent for good once it lived through a stall that was healed. */
  private readonly links = new Set<{ silent: boolean }>();
  private listener: Server | null = null;
  /** While set, a client's `COMMIT` reaches the database but no answer comes back, then the connection drops. */
  private loseCommitReplies = false;
  /** While set, nothing passes either way and new connections hang: a network that silently drops everything. */
  private stalled = false;
  /** How many COMMITs were forwarded whose answer was thrown away. */
  commitsLost = 0;

  private constructor(
    readonly port: number,
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Starts forwarding a free local port to `targetHost:targetPort`. */
  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(0, targetHost, targetPort);
    const port = await proxy.listen(0);
    Object.assign(proxy, { port });
    return proxy;
  }

  private listen(port: number): Promise<number> {
    const listener = createServer((client) => this.forward(client));
    this.listener = listener;
    return new Promise((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(port, '127.0.0.1', () => resolve((listener.address() as { port: number }).port));
    });
  }

  private forward(client: Socket): void {
    const upstream = new Socket();
    upstream.connect(this.targetPort, this.targetHost);
    this.track(client);
    this.track(upstream);
    let replying = true;
    const link = { silent: false };
    this.links.add(link);
    client.on('data', (chunk: Buffer) => {
      if (this.stalled || link.silent) return;
      // node-postgres sends COMMIT as a simple query: 'Q', length, "COMMIT\0", or "COMMIT; SELECT pg_notify(…)\0"
      // when a change notification follows it (connections.ts).
      if (this.loseCommitReplies && replying && (chunk.includes('COMMIT\0') || chunk.includes('COMMIT; SELECT pg_notify('))) {
        replying = false;
        this.commitsLost++;
        // Long enough for PostgreSQL to commit, short enough that the client sees a lost connection, not a timeout.
        setTimeout(() => {
          client.destroy();
          upstream.destroy();
        }, 200);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (replying && !this.stalled && !link.silent) client.write(chunk);
    });
    const end = () => {
      this.links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  /**
   * The database goes away: every open connection is closed and new ones are refused (nothing listens).
   * destroy(), not resetAndDestroy(): a reset of a socket still connecting left this process's event loop spinning.
   */
  async cut(): Promise<void> {
    const listener = this.listener;
    this.listener = null;
    for (const s of this.sockets) s.destroy();
    if (listener) await new Promise<void>((resolve) => listener.close(() => resolve()));
  }

  /** The database stops answering without closing anything: only the client's own timeouts end its waits. */
  stall(): void {
    this.stalled = true;
  }

  /**
   * The network is back after a stall, for new connections only: those that lived through it stay
   * silent for good and are never closed (a NAT or firewall that forgot them), so only a client's own
   * checks (a ping with a timeout) can tell. TCP keepalive cannot: the proxy's own sockets answer it.
   */
  heal(): void {
    for (const link of this.links) link.silent = true;
    this.stalled = false;
  }

  /** The database is back, on the same port; connections that lived through a stall lost bytes and are closed. */
  async restore(): Promise<void> {
    if (this.stalled) {
      this.stalled = false;
      for (const s of this.sockets) s.destroy();
    }
    if (!this.listener) await this.listen(this.port);
  }

  /** From now on the answer to every COMMIT is lost (the commit itself happens): the client cannot know whether it did. */
  loseCommits(on: boolean): void {
    this.loseCommitReplies = on;
  }

  /** Stops listening and drops every connection. */
  close(): Promise<void> {
    return this.cut();
  }
}
