// Commands ioredis sends by itself, with no caller to handle their failure: after a reconnect it
// subscribes a subscriber connection again (SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE) and selects the
// database again (SELECT), and nothing catches their promises. When the connection drops again
// before Redis answers (a failover, then the new master killed too), they are rejected (by
// ./unanswered.ts at the close, by a command timeout, by ioredis flushing its queues), and Node
// exits on a promise rejected with no handler. Each such command gets a
// handler here; a caller who sent one itself still gets its rejection.
import Redis, { Cluster, Command } from 'ioredis';

/** The commands ioredis re-sends on its own after a reconnect. */
const SENT_BY_IOREDIS = new Set(['select', 'subscribe', 'psubscribe', 'ssubscribe']);

type SendCommand = (command: Command, stream?: unknown) => unknown;

/** From now on, no command ioredis sends by itself on `client` can end the process; on a cluster, on every node. */
export function handleIoredisOwnCommands(client: Redis | Cluster): void {
  if (client instanceof Cluster) {
    client.on('+node', (node: Redis) => handleIoredisOwnCommands(node));
    return;
  }
  const send = (client.sendCommand as SendCommand).bind(client);
  (client as unknown as { sendCommand: SendCommand }).sendCommand = (command, stream) => {
    // ioredis names the commands it sends itself in lower case, as its methods are.
    if (SENT_BY_IOREDIS.has(command.name)) command.promise.catch(() => {});
    return send(command, stream);
  };
}
