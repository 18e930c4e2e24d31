// A connection ioredis gave up on. ioredis ends a connection (status `end`, no reconnect ever) when
// it is closed on purpose, but also on its own: with Sentinel, a failover detector left subscribed
// from the previous connection that hears `+switch-master` while SentinelConnector.connect() runs
// makes connect() fail, and the client ends (issue #25). Every command on it then fails with
// "Connection is closed." for good. nexq watches each connection it opens: the actor that owns one
// crashes when it ends, and its supervisor's restart opens a fresh one. Closing a connection on
// purpose unwatches it first.
import { NexqError } from '../../config/nexq-error';
import type { RedisClient } from './client';

/** A connection ioredis will never reconnect: the actor owning it crashes, and its restart opens a fresh one. */
export class ConnectionEndedError extends NexqError {
  static override readonly code = 'REDIS_CONNECTION_ENDED';
  override readonly name = 'ConnectionEndedError';
}

/** Redis did not answer within `redisStartTimeout` (Nexq.start, the CLI's commands). */
export class RedisUnreachableError extends NexqError {
  static override readonly code = 'REDIS_UNREACHABLE';
  override readonly name = 'RedisUnreachableError';
}

/**
 * Calls `onEnd` once if `client` ends (or has ended already) while watched; `what` names the
 * connection in the error. Returns the unwatch, to call before closing the connection on purpose.
 */
export function watchEnd(client: RedisClient, what: string, onEnd: (err: ConnectionEndedError) => void): () => void {
  let watching = true;
  const ended = () => {
    if (!watching) return;
    watching = false;
    client.off('end', ended);
    onEnd(new ConnectionEndedError(`${what} ended (ioredis stopped reconnecting it): replacing it with a fresh one`));
  };
  client.on('end', ended);
  if (client.status === 'end') process.nextTick(ended);
  return () => {
    watching = false;
    client.off('end', ended);
  };
}
