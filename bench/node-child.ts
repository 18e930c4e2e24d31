// The parent's handle on a node child process (node-process.ts): fork it, wait until it is ready,
// wait for `done` while watching for stalls and crashes, stop it, and keep its log lines.
// A peer's process (bench/peers/) is handled the same way: it is spawned, says the same messages
// as JSON lines on stdout (its other lines are log lines), and is stopped with SIGTERM.
import { ChildProcess, fork, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { ChildMessage, NodeChildConfig } from './protocol';

export type ReadyMessage = Extract<ChildMessage, { type: 'ready' }>;
export type DoneMessage = Extract<ChildMessage, { type: 'done' }>;

/** No progress for this long while jobs remain: the run is reported as a hang. */
export const STALL_MS = 30_000;
const READY_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 30_000;

export class NodeChild {
  /** Lines the child wrote to stdout/stderr: the node logs at warn, so these are problems. */
  readonly log: string[] = [];
  private readonly listeners = new Set<(msg: ChildMessage) => void>();
  private exitReason?: string;

  private constructor(
    private readonly child: ChildProcess,
    private readonly messagesOnStdout = false,
  ) {
    child.on('message', (msg: ChildMessage) => this.receive(msg));
    const keep = (data: Buffer) =>
      this.log.push(
        ...data
          .toString()
          .split('\n')
          .filter((l) => l.trim() !== ''),
      );
    if (messagesOnStdout && child.stdout)
      createInterface({ input: child.stdout }).on('line', (line) => this.line(line));
    else child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('exit', (code, signal) => {
      this.exitReason = `${messagesOnStdout ? 'peer process' : 'node child'} exited (code ${code}, signal ${signal})`;
      for (const listener of this.listeners) listener({ type: 'error', message: this.exitReason });
    });
  }

  /** Forks the child and resolves with its `ready` message (Nexq.start resolved). */
  static async start(
    config: NodeChildConfig,
    execArgv: string[] = [],
  ): Promise<{ child: NodeChild; ready: ReadyMessage }> {
    const proc = fork(path.join(__dirname, 'node-process.js'), [], {
      env: { ...process.env, NEXQ_BENCH_NODE: JSON.stringify(config) },
      execArgv,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const child = new NodeChild(proc);
    const ready = await child.next('ready', READY_TIMEOUT_MS);
    return { child, ready };
  }

  /**
   * Spawns a peer's process; resolves once it said `version`. `ignore` drops log lines that are not
   * problems (a peer's boot banner).
   */
  static async spawnPeer(
    command: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    ignore?: RegExp,
  ): Promise<{ child: NodeChild; version: string }> {
    const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const child = new NodeChild(proc, true);
    child.ignore = ignore;
    proc.on('error', (err) => child.receive({ type: 'error', message: `${command}: ${err.message}` }));
    const { version } = await child.next('version', READY_TIMEOUT_MS);
    return { child, version };
  }

  private ignore?: RegExp;

  private line(line: string): void {
    if (line.startsWith('{"type":')) this.receive(JSON.parse(line) as ChildMessage);
    else if (line.trim() !== '' && !this.ignore?.test(line)) this.log.push(line);
  }

  /**
   * Messages nobody waited for yet, by type: several lines can arrive in one read (a peer whose
   * jobs all finished at start says `ready` and `done` at once), before the next wait begins.
   */
  private readonly unclaimed = new Map<ChildMessage['type'], ChildMessage>();

  private receive(msg: ChildMessage): void {
    if (msg.type === 'error') this.log.push(`child error: ${msg.message}`);
    this.unclaimed.set(msg.type, msg);
    for (const listener of this.listeners) listener(msg);
  }

  private claim<T extends ChildMessage['type']>(type: T): Extract<ChildMessage, { type: T }> | undefined {
    const msg = this.unclaimed.get(type);
    this.unclaimed.delete(type);
    return msg as Extract<ChildMessage, { type: T }> | undefined;
  }

  /**
   * Calls `listener` with every message from now on (W6's fleet of peer processes sums their
   * progress); returns the function that stops it.
   */
  onMessage(listener: (msg: ChildMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when the process exited (a peer's enqueue side exits when it is done). */
  exited(): Promise<void> {
    if (this.exitReason) return Promise.resolve();
    return new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * Resolves with `done`; rejects when the child dies, or when the finished count does not move
   * for STALL_MS (`onProgress` sees every progress report).
   */
  waitDone(onProgress?: (acked: number, failed: number) => void): Promise<DoneMessage> {
    const already = this.claim('done');
    if (already) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      let last = -1;
      let lastMove = Date.now();
      const watchdog = setInterval(() => {
        if (Date.now() - lastMove > STALL_MS)
          finish(new Error(`no job finished for ${STALL_MS / 1000} s (finished so far: ${Math.max(last, 0)})`));
      }, 1000);
      const listener = (msg: ChildMessage) => {
        if (msg.type === 'progress') {
          onProgress?.(msg.acked, msg.failed);
          if (msg.acked + msg.failed !== last) {
            last = msg.acked + msg.failed;
            lastMove = Date.now();
          }
        } else if (msg.type === 'done') finish(undefined, this.claim('done'));
        else if (msg.type === 'error') finish(new Error(msg.message));
      };
      const finish = (err?: Error, done?: DoneMessage) => {
        clearInterval(watchdog);
        this.listeners.delete(listener);
        if (err) reject(err);
        else resolve(done!);
      };
      this.listeners.add(listener);
    });
  }

  /** Graceful stop (nexq.stop()), then waits for the process to exit; kills it if it hangs. */
  async stop(): Promise<void> {
    if (this.exitReason) return;
    const exited = this.exited();
    if (this.messagesOnStdout) this.child.kill('SIGTERM');
    else this.child.send({ type: 'stop' });
    const timer = setTimeout(() => {
      this.log.push(`node child did not exit within ${STOP_TIMEOUT_MS / 1000} s of stop; killed`);
      this.child.kill('SIGKILL');
    }, STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  kill(): void {
    if (!this.exitReason) this.child.kill('SIGKILL');
  }

  /** Waits for the next message of this type (`ready`; a peer's `version`, `enqueued`). */
  next<T extends ChildMessage['type']>(
    type: T,
    timeoutMs = READY_TIMEOUT_MS,
  ): Promise<Extract<ChildMessage, { type: T }>> {
    const already = this.claim(type);
    if (already) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          done(new Error(`${this.messagesOnStdout ? 'peer' : 'node child'} sent no ${type} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const listener = (msg: ChildMessage) => {
        if (msg.type === type) done(undefined, this.claim(type));
        else if (msg.type === 'error') done(new Error(msg.message));
      };
      const done = (err?: Error, msg?: Extract<ChildMessage, { type: T }>) => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        if (err) {
          this.kill();
          reject(err);
        } else resolve(msg!);
      };
      this.listeners.add(listener);
    });
  }
}
