// Shared by the nexq/testing tests: the fixture handlers (no Redis) and what they recorded.
import path from 'node:path';
import { repoRoot } from '../support/paths';

export const jobsDir = path.join(repoRoot, 'test', 'fixtures', 'testing-jobs');

export interface Run {
  class: string;
  args: unknown[];
  context: {
    jid: string;
    queue: string;
    className: string;
    retryCount: number;
    enqueuedAt: number | undefined;
    nacks: number;
  };
}

const store = globalThis as unknown as { nexqTestingRuns?: Run[] };

/** What the fixture handlers ran with, in order. */
export function runs(): Run[] {
  return store.nexqTestingRuns ?? [];
}

export function resetRuns(): void {
  store.nexqTestingRuns = [];
}

/** The rejection of `promise`; fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** What `fn` throws; fails the test if it returns. */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw, but it returned');
}
