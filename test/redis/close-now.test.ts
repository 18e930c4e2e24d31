// closeNow (src/redis/close-now.ts) ends a client waiting to reconnect at once: the commands it
// holds fail now instead of after their command timeout, and so does any sent after. It reads
// ioredis 5's internals (flushQueue, setStatus): this test says when an upgrade moves them.
import { expect } from 'chai';
import { connect } from '../../src/redis/connection';
import { CLOSED_MESSAGE, closeNow } from '../../src/redis/close-now';
import { freePort } from '../support/redis-server';
import { waitFor } from '../support/node';

describe('closeNow', () => {
  it('fails at once what a client waiting to reconnect holds, and what is sent after', async () => {
    const client = connect(`redis://127.0.0.1:${await freePort()}`); // nothing listens there
    client.on('error', () => {});
    client.connect().catch(() => {});
    await waitFor(() => client.status === 'reconnecting', 5000, 'the client to wait for a reconnect');
    const held = client.get('k').then(
      () => 'answered',
      (err: unknown) => (err as Error).message,
    );
    closeNow(client);
    // Well before the 10 s command timeout: the held command fails in this turn of the event loop.
    const outcome = await Promise.race([held, new Promise((r) => setTimeout(() => r('still held'), 1000))]);
    expect(outcome).to.equal(CLOSED_MESSAGE);
    expect(client.status).to.equal('end');
    const after = await client.get('k').then(
      () => 'answered',
      (err: unknown) => (err as Error).message,
    );
    expect(after).to.not.equal('answered');
  });
});
