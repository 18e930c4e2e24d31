// The soak's handle on its node processes: fork each, wait until it is ready, pass its progress
// reports on, read its RSS from /proc, stop it gracefully.
import { ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { memory } from '../proc';
import type { NodeMemory, SoakNodeConfig, SoakNodeMessage } from './protocol';

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 30_000;

export class SoakNode {
  /** The node's last process.memoryUsage(). */
  lastMemory?: NodeMemory;
  /** Lines the node wrote (it logs at warn, so each one is worth reading). */
  readonly log: string[] = [];
  exitReason?: string;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly nodeId: string,
  ) {}

  static async start(
    name: string,
    config: SoakNodeConfig,
    onProgress: (succeeded: number[], failed: number[]) => void,
  ): Promise<SoakNode> {
    const child = fork(path.join(__dirname, 'soak-node.js'), [], {
      env: { ...process.env, NEXQ_SOAK_NODE: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const early: string[] = [];
    const keep = (data: Buffer) =>
      early.push(
        ...data
          .toString()
          .split('\n')
          .filter((l) => l.trim() !== ''),
      );
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const nodeId = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} was not ready within 30 s`)), READY_TIMEOUT_MS);
      child.on('message', (msg: SoakNodeMessage) => {
        if (msg.type === 'ready') {
          clearTimeout(timer);
          resolve(msg.nodeId);
        } else if (msg.type === 'error') reject(new Error(`${name}: ${msg.message}`));
      });
      child.once('exit', (code) =>
        reject(new Error(`${name} exited (${code}) before it was ready: ${early.join('\n')}`)),
      );
    });
    const node = new SoakNode(name, child, nodeId);
    node.log.push(...early);
    child.stdout?.removeListener('data', keep);
    child.stderr?.removeListener('data', keep);
    const log = (data: Buffer) =>
      node.log.push(
        ...data
          .toString()
          .split('\n')
          .filter((l) => l.trim() !== ''),
      );
    child.stdout?.on('data', log);
    child.stderr?.on('data', log);
    child.on('message', (msg: SoakNodeMessage) => {
      if (msg.type === 'progress') {
        node.lastMemory = msg.memory;
        onProgress(msg.succeeded, msg.failed);
      } else if (msg.type === 'error') node.log.push(`error: ${msg.message}`);
    });
    child.on('exit', (code, signal) => (node.exitReason = `exited (code ${code}, signal ${signal})`));
    return node;
  }

  /** Resident set now, MB, from /proc. */
  rssMb(): number {
    return memory(this.child.pid!).rssMb;
  }

  /** Graceful stop; resolves once the process exited (killed if it hangs). */
  async stop(): Promise<void> {
    if (this.exitReason) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ type: 'stop' });
    const timer = setTimeout(() => {
      this.log.push(`did not exit within ${STOP_TIMEOUT_MS / 1000} s of stop; killed`);
      this.child.kill('SIGKILL');
    }, STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  kill(): void {
    if (!this.exitReason) this.child.kill('SIGKILL');
  }
}
