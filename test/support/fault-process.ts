// A nexq process (the `nexq` command, or a program that calls Nexq.start) with a fault injector
// preloaded (test/fixtures/process-faults/inject.js): `fault()` makes it meet an error nothing in
// it handles, from outside nexq's code, so a test sees what the process does then.
import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './paths';
import { NodeTest, waitFor } from './node';

const INJECTOR = path.join(repoRoot, 'test', 'fixtures', 'process-faults', 'inject.js');

export interface FaultProcess {
  child: ChildProcessWithoutNullStreams;
  /** What it wrote so far, stdout and stderr (its log). */
  output(): string;
  /** Its exit code once it exits. */
  exited: Promise<number | null>;
  /** Makes the fault happen now. */
  fault(): void;
  /** Waits until its output holds `text`. */
  waitForLog(text: string, timeoutMs?: number): Promise<void>;
}

export function startFaultProcess(
  script: string,
  args: string[],
  fault: 'rejection' | 'exception',
  env: NodeJS.ProcessEnv = {},
): FaultProcess {
  const child = spawn(process.execPath, ['--require', INJECTOR, script, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NEXQ_TEST_FAULT: fault, ...env },
  });
  let text = '';
  child.stderr.on('data', (d) => (text += String(d)));
  child.stdout.on('data', (d) => (text += String(d)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => text,
    exited,
    fault: () => child.kill('SIGUSR2'),
    waitForLog: async (wanted, timeoutMs = 15_000) => {
      try {
        await waitFor(() => text.includes(wanted), timeoutMs);
      } catch {
        throw new Error(`no ${JSON.stringify(wanted)} in the output of ${path.basename(script)}:\n${text}`);
      }
    },
  };
}

/**
 * Enqueues a Record job on the queue `default` that sleeps `ms` before it records `value` in
 * `key`, and waits until it runs on the node `nodeId` (it is in that node's backup list).
 */
export async function startSlowJob(t: NodeTest, nodeId: string, key: string, value: string, ms: number): Promise<void> {
  const producer = await t.start({ mode: 'enqueuer' });
  await producer.enqueue('default', 'Record', [t.url, key, value, ms]);
  const backup = t.keys.backup(nodeId, 'default');
  await waitFor(async () => (await t.redis.llen(backup)) === 1, 15_000, 'the job to be running');
}
