// Commands a closed connection never answered. With autoResendUnfulfilledCommands off (nexq's
// policy: a fetch or an enqueue that ran must not run twice) ioredis neither sends them again nor
// fails them when the connection closes: it drops them at the reconnect, and each caller waits
// for its whole command timeout (10 s) before it can retry, back off or reclaim. This fails them
// as soon as the connection closes, with an error that says they may or may not have run.
//
// It reads ioredis 5's own queue of such commands (`prevCommandQueue`, filled when a ready
// connection closes); test/redis/unanswered.test.ts checks that it still does.
//
// A command whose caller no longer waits for it (nothing handles its promise) is dropped as ioredis
// would drop it: failing it must not make it an unhandled rejection, which ends the process.
import Redis, { Cluster } from 'ioredis';

export const UNANSWERED_MESSAGE = 'the connection closed before Redis answered: the command may or may not have run';

interface Pending {
  command: { promise: Promise<unknown>; reject(err: Error): void };
}

interface Internals {
  prevCommandQueue?: { length: number; shift(): Pending | undefined } | null;
}

/**
 * Fails a connection's unanswered commands when it closes; on a cluster, each node's. (A cluster
 * sends again a command failed with ioredis' own "Connection is closed." message; this message
 * differs on purpose, so it is not sent twice.)
 */
export function failUnansweredOnClose(client: Redis | Cluster): void {
  if (client instanceof Cluster) {
    client.on('+node', (node: Redis) => failUnansweredOnClose(node));
    return;
  }
  client.on('close', () => {
    const queue = (client as unknown as Internals).prevCommandQueue;
    if (!queue) return;
    const err = new Error(UNANSWERED_MESSAGE);
    for (let item = queue.shift(); item; item = queue.shift()) {
      item.command.promise.catch(() => {}); // whoever awaits it still gets `err`
      item.command.reject(err);
    }
  });
}
