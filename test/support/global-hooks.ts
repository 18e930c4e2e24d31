// One redis-server for the whole run, shared by every test through its own namespace.
// Tests that kill or restart Redis start a RedisServer of their own.
//
// A promise rejected with no handler fails the test it happened in. Mocha itself swallows them (it
// re-emits the event with no listener of its own left, and Node then does nothing), so without this
// a rejection that would kill a node process in production passes every test. Thrown from the
// listener, it reaches Mocha as an uncaught exception, which fails the running test and goes on.
import { randomUUID } from 'node:crypto';
import { RedisServer } from './redis-server';

let shared: RedisServer | undefined;

process.on('unhandledRejection', (reason) => {
  const detail = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
  throw new Error(`a promise was rejected and nothing handled it (a node process would exit): ${detail}`);
});

export function sharedRedis(): RedisServer {
  if (!shared) throw new Error('the shared redis-server is not running (global hooks not loaded?)');
  return shared;
}

/** A namespace no other test uses, so tests never see each other's keys. */
export function freshNamespace(prefix = 't'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(20_000);
    shared = await RedisServer.start();
  },
  async afterAll() {
    await shared?.stop();
  },
};
