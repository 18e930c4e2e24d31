// The bench's own redis-server: a free port, a temp dir, no persistence (`--save '' --appendonly
// no`), so disk writes never show up in the figures. Its pid is exposed for /proc readings.
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { redisAnswers } from '../src/cli/local-redis';
import { freePort } from '../test/support/redis-server';

export class BenchRedis {
  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly child: ChildProcess,
  ) {}

  static async start(): Promise<BenchRedis> {
    const port = await freePort();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-bench-redis-'));
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
        '--logfile',
        path.join(dir, 'redis.log'),
      ],
      { stdio: 'ignore' },
    );
    const server = new BenchRedis(port, dir, child);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`redis-server exited at start (see ${dir}/redis.log)`);
      if (await redisAnswers('127.0.0.1', port)) return server;
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill('SIGKILL');
    throw new Error(`redis-server on port ${port} did not answer within 10 s`);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      this.child.kill('SIGKILL');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
