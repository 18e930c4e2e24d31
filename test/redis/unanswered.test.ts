// A command in flight when its connection closes fails at once with a message that says it may
// have run, instead of hanging until the command timeout (ioredis drops it at the reconnect when
// it is not to be sent again). Checks the ioredis internals src/redis/unanswered.ts relies on.
import { expect } from 'chai';
import Redis from 'ioredis';
import { connectTarget } from '../../src/redis/connection';
import { UNANSWERED_MESSAGE } from '../../src/redis/unanswered';
import { sharedRedis } from '../support/global-hooks';
import { waitFor } from '../support/node';

describe('commands a closed connection never answered', () => {
  it('fail with the "may or may not have run" error, and the client goes on after reconnecting', async () => {
    const client = connectTarget(sharedRedis().url);
    client.on('error', () => {});
    const admin = new Redis(sharedRedis().url);
    try {
      await client.connect();
      const id = await client.client('ID');
      const key = `unanswered:${id}`;
      // A blocking command Redis will not answer for 15 s, longer than the 10 s command timeout:
      // only the close can end it with this message.
      const pending = client.blpop(key, 15).then(
        () => 'answered',
        (err: unknown) => (err as Error).message,
      );
      await waitFor(async () => /cmd=blpop/.test(String(await admin.client('LIST'))), 5000, 'the BLPOP to block');
      await admin.client('KILL', 'ID', String(id));
      expect(await pending).to.equal(UNANSWERED_MESSAGE);
      expect(await client.ping()).to.equal('PONG');
    } finally {
      client.disconnect();
      admin.disconnect();
    }
  });

  it('fail without an unhandled rejection when nobody waits for them (the global hooks would fail this test)', async () => {
    const client = connectTarget(sharedRedis().url);
    client.on('error', () => {});
    try {
      await client.connect();
      const closed = new Promise((resolve) => client.once('close', resolve));
      // Sent, its promise dropped at once, as by a caller that stopped listening; then the socket
      // goes before any reply can have been read.
      // eslint-disable-next-line @typescript-eslint/no-floating-promises -- what the test is about
      client.blpop(`unanswered:${Date.now()}`, 15);
      (client as unknown as { stream: { destroy(): void } }).stream.destroy();
      await closed;
      await new Promise((resolve) => setImmediate(resolve)); // Node reports unhandled rejections by now
      expect(await client.ping()).to.equal('PONG');
    } finally {
      client.disconnect();
    }
  });
});
