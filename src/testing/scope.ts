// Which test nexq runs the handler now: set around each handler run by drain, inline enqueue and
// performJob, and followed through awaits (AsyncLocalStorage), so a handler can enqueue through it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TestNexq } from './test-nexq';

const scope = new AsyncLocalStorage<TestNexq>();

/**
 * The test nexq that is running the calling handler, or `undefined` outside such a run (in a real
 * node, for instance). A handler enqueues follow-up jobs with `currentTestNexq() ?? yourRealNexq`.
 */
export function currentTestNexq(): TestNexq | undefined {
  return scope.getStore();
}

export function runInScope<T>(nexq: TestNexq, fn: () => T): T {
  return scope.run(nexq, fn);
}
