/**
 * How the server's long-lived connections (the PostgreSQL pool, the change feed's listening
 * connection, the Redis of the rate limits) prove they are alive. A network that drops packets
 * without a word (a firewall or NAT that forgot the connection, a cable pulled) leaves a socket
 * that looks open and never answers: the operating system notices only after many minutes, so each
 * connection is asked a cheap question (a trivial statement, a PING) and dropped when no answer comes in time.
 */

/** TCP keepalive starts probing a connection idle this long (the system's probe count and interval apply after). */
export const KEEPALIVE_DELAY_MS = 10_000;

/** A connection that answered nothing for this long is asked a ping before it is trusted again. */
export const PROVEN_FOR_MS = 2_000;

/** A ping (or any statement or command of a connection being checked) must be answered within this, or the connection is dropped. */
export const ANSWER_WITHIN_MS = 1_000;

/** The longest pause between two tries to connect again, so that a connection is back within about this of its service. */
export const RECONNECT_MAX_MS = 1_000;
