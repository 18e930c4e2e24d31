// A private redis-server for tests: its own free port and temp dir, so a test can kill -9 it and
// start it again on the same port and data (AOF on) without touching anyone else's Redis.
import { ChildProcess, spawn } from 'node:child_process';
import Redis from 'ioredis';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** True when something on the loopback `port` answers PING like a Redis server. */
export function answersPing(port: number, ca?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = ca ? tls.connect({ port, host: '127.0.0.1', ca }) : net.connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once(ca ? 'secureConnect' : 'connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(/^(\+PONG|-NOAUTH)/.test(data.toString()));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Runs `body` on a short-lived client of the loopback `port` (no retries), for harness checks. */
export async function askRedis<T>(port: number, body: (client: Redis) => Promise<T>, password?: string): Promise<T> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    password,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return await body(client);
  } finally {
    client.disconnect();
  }
}

/** A replica syncs at once instead of after Redis 7's 5 s wait for more replicas (diskless sync). */
export const QUICK_SYNC = ['--repl-diskless-sync-delay', '0'];

export interface RedisServerOptions {
  /** Extra `redis-server` arguments, e.g. ['--requirepass', 'secret']. */
  args?: string[];
  /** Serve TLS only, with these PEM files (clients are not asked for certificates). */
  tls?: { cert: string; key: string; ca: string };
}

export class RedisServer {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-redis-'));
  private child?: ChildProcess;

  private constructor(
    readonly port: number,
    private readonly options: RedisServerOptions,
  ) {}

  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), options);
    await server.launch();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Starts redis-server (again) on the same port and data dir, and waits until it answers.
   * `extraArgs` go after the options' own (a later argument wins).
   */
  async launch(extraArgs: string[] = []): Promise<void> {
    if (this.running) return;
    const child = spawn(
      'redis-server',
      [
        ...(this.options.tls
          ? [
              '--port',
              '0',
              '--tls-port',
              String(this.port),
              '--tls-cert-file',
              this.options.tls.cert,
              '--tls-key-file',
              this.options.tls.key,
              '--tls-ca-cert-file',
              this.options.tls.ca,
              '--tls-auth-clients',
              'no',
            ]
          : ['--port', String(this.port)]),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--daemonize',
        'no',
        '--logfile',
        path.join(this.dir, 'redis.log'),
        ...(this.options.args ?? []),
        ...extraArgs,
      ],
      { stdio: 'ignore' },
    );
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`redis-server exited at start (see ${this.dir}/redis.log)`);
      if (await answersPing(this.port, this.options.tls && readFileSync(this.options.tls.ca, 'utf8'))) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`redis-server on port ${this.port} did not answer within 10 s`);
  }

  /** kill -9: no shutdown save, clients see the connection drop. */
  async kill9(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGSTOP / SIGCONT: the server holds its connections but answers nothing (a stalled replica). */
  freeze(frozen: boolean): void {
    if (this.running) this.child!.kill(frozen ? 'SIGSTOP' : 'SIGCONT');
  }

  async restart(): Promise<void> {
    await this.kill9();
    await this.launch();
  }

  async stop(): Promise<void> {
    // A fork of the server (a save for a replica's sync, an AOF rewrite) outlives a kill -9 of its
    // parent and goes on writing in the directory: it goes first.
    if (this.running) for (const pid of forksOf(this.child!.pid!)) killQuietly(pid);
    await this.kill9();
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}

/** The processes `pid` forked that still run (Linux: /proc/<pid>/task/<pid>/children). */
function forksOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return []; // not Linux, or it exited meanwhile
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // exited meanwhile
  }
}
