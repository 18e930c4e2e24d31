// One redis-server for the whole run, shared by every test through its own namespace.
// Tests that kill or restart Redis start a RedisServer of their own.
import { randomUUID } from 'node:crypto';
import { RedisServer } from './redis-server';

let shared: RedisServer | undefined;

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
