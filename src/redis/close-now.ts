// Closing a client at once, every command it holds failed. ioredis' disconnect() does that for a
// connection that is up, but not for one waiting to reconnect (Redis down): it only cancels the
// reconnect, leaves the client `reconnecting` and its offline queue waiting, and each command there
// waits out its whole command timeout (10 s) before it fails; a command sent after it waits
// likewise. This also fails them at once and ends the client, through ioredis 5's own `flushQueue`
// and `setStatus` (test/redis/close-now.test.ts checks that they still do).
import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';

export const CLOSED_MESSAGE = 'the connection was closed by the node';

interface Internals {
  flushQueue?(error: Error): void;
  setStatus?(status: string): void;
}

export function closeNow(client: Redis | Cluster): void {
  client.disconnect();
  if (client.status === 'end') return;
  const internals = client as unknown as Internals;
  internals.setStatus?.('end');
  internals.flushQueue?.(new Error(CLOSED_MESSAGE));
}
