// The commands ioredis sends by itself after a reconnect (a subscriber's SUBSCRIBE again) have no
// caller: when the connection drops again before Redis answers them, their rejection must be no
// one's unhandled rejection (the global hooks fail the test on one; in a node process it was an
// exit, in a Sentinel failover whose new master was killed too). The subscriber reconnects.
import { expect } from 'chai';
import Redis from 'ioredis';
import { duplicateClient, RedisClient } from '../../src/redis/client';
import { sharedRedis } from '../support/global-hooks';
import { waitFor } from '../support/node';

/** The CLIENT ID of the connection whose last command was `command`. */
async function clientRunning(admin: Redis, command: string): Promise<string> {
  const line = await waitFor(
    async () =>
      String(await admin.client('LIST'))
        .split('\n')
        .find((l) => l.includes(` cmd=${command} `)),
    5000,
    `a connection that ran ${command}`,
  );
  return /\bid=(\d+)/.exec(line)![1];
}

describe('commands ioredis sends by itself', () => {
  /**
   * Subscribes, has the server drop the connection, and at the moment ioredis has sent SUBSCRIBE
   * again (its 'ready': no reply can have been read yet) runs `cut` on the subscriber.
   */
  async function cutOffResubscription(cut: (subscriber: RedisClient & { stream: { destroy(): void } }) => void) {
    const main = new Redis(sharedRedis().url);
    const admin = new Redis(sharedRedis().url);
    const subscriber = duplicateClient(main, { commandTimeout: undefined }) as RedisClient & {
      stream: { destroy(): void };
      commandQueue: { peekAt(i: number): { command: { name: string } } | undefined };
    };
    subscriber.on('error', () => {});
    try {
      await subscriber.subscribe(`own-commands:${Date.now()}`);
      let cutOff = false;
      subscriber.once('ready', () => {
        expect(subscriber.commandQueue.peekAt(0)?.command.name).to.equal('subscribe');
        cut(subscriber);
        cutOff = true;
      });
      await admin.client('KILL', 'ID', await clientRunning(admin, 'subscribe'));
      await waitFor(() => cutOff, 5000, 'the re-subscription to be cut off');
      return subscriber;
    } finally {
      main.disconnect();
      admin.disconnect();
    }
  }

  it('a re-subscription cut off by the connection dropping again is no unhandled rejection', async () => {
    const subscriber = await cutOffResubscription((s) => s.stream.destroy());
    try {
      await waitFor(() => subscriber.status === 'ready', 10_000, 'the subscriber to reconnect');
      await new Promise((resolve) => setImmediate(resolve)); // Node reports unhandled rejections by now
    } finally {
      subscriber.disconnect();
    }
  });

  it('nor is one cut off by its connection being closed (an actor stopping) as the link drops', async () => {
    const subscriber = await cutOffResubscription((s) => {
      s.disconnect(); // ioredis fails what is in flight with "Connection is closed."
      s.stream.destroy();
    });
    await waitFor(() => subscriber.status === 'end', 5000, 'the subscriber to end');
    await new Promise((resolve) => setImmediate(resolve));
  });
});
