// Several nexq node processes against one Redis, for the chaos tests.
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { NexqStartOptions } from '../../src/nexq';

export interface NodeProcess {
  nodeId: string;
  child: ChildProcess;
  output: () => string;
  /** What it printed on stdout ("ready ...", "enqueued <jid>" per job sent on its stdin). */
  stdout: () => string;
}

/** `env`: more environment for the child (the clock-skew test's libfaketime). */
export async function startNodeProcess(options: NexqStartOptions, env: NodeJS.ProcessEnv = {}): Promise<NodeProcess> {
  const child = spawn(process.execPath, [path.join(__dirname, 'node-process.js')], {
    env: { ...process.env, ...env, NEXQ_CHAOS_OPTIONS: JSON.stringify(options) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stderr.on('data', (d) => (output += String(d)));
  const nodeId = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += String(d);
      const match = /ready (\S+)/.exec(stdout);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`node process exited with ${code} before it was ready: ${output}`)));
  });
  return { nodeId, child, output: () => output, stdout: () => stdout };
}

export async function kill9(node: NodeProcess): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const exited = new Promise((resolve) => node.child.once('exit', resolve));
  node.child.kill('SIGKILL');
  await exited;
}

export async function stopGracefully(node: NodeProcess): Promise<number | null> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return node.child.exitCode;
  const exited = new Promise<number | null>((resolve) => node.child.once('exit', resolve));
  node.child.kill('SIGTERM');
  return exited;
}
