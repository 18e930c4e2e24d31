// Which test nexq runs the handler now: set around each handler run by drain, inline enqueue and
// performJob, and followed through awaits (AsyncLocalStorage), so a handler can enqueue through it
// (`currentTestNexq()`, in test-nexq.ts). The runners know the test nexq only as the scope's owner,
// so none of them imports test-nexq.ts, which imports them.
import { AsyncLocalStorage } from 'node:async_hooks';

/** The test nexq a handler run belongs to, as the runners see it. */
export type ScopeOwner = object;

const scope = new AsyncLocalStorage<ScopeOwner>();

/** The owner of the handler run in progress, or `undefined` outside one. */
export function scopeOwner(): ScopeOwner | undefined {
  return scope.getStore();
}

export function runInScope<T>(owner: ScopeOwner, fn: () => T): T {
  return scope.run(owner, fn);
}
