// Driving the real Sidekiq (Debian's ruby-sidekiq) from the interop tests; without it they are
// skipped (required-tool.ts).
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import Redis from 'ioredis';
import { repoRoot } from '../support/paths';
import { RedisServer } from '../support/redis-server';
import { onPath, requireTool, rubyRuns } from '../support/required-tool';

const RUBY_DIR = path.join(repoRoot, 'test', 'interop', 'ruby');
/** The commands to run; NEXQ_TEST_RUBY and NEXQ_TEST_SIDEKIQ name others. */
const RUBY = process.env.NEXQ_TEST_RUBY ?? 'ruby';
const SIDEKIQ = process.env.NEXQ_TEST_SIDEKIQ ?? 'sidekiq';

/** Sidekiq's gem for api.rb and its `sidekiq` command for SidekiqServer. */
function sidekiqMissing(): string | undefined {
  if (!onPath(SIDEKIQ)) return `no ${SIDEKIQ} command`;
  if (!onPath(RUBY) || !rubyRuns(RUBY, 'require "sidekiq"')) return `${RUBY} cannot require "sidekiq"`;
  return undefined;
}

/** Runs `ruby api.rb command input` against `redisUrl`; returns its JSON answer. */
export function sidekiqApi(redisUrl: string, command: string, input: unknown = null): any {
  const result = spawnSync(RUBY, [path.join(RUBY_DIR, 'api.rb'), command, JSON.stringify(input)], {
    encoding: 'utf8',
    env: { ...process.env, REDIS_URL: redisUrl },
    timeout: 20_000,
  });
  if (result.status !== 0) throw new Error(`ruby api.rb ${command} failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!);
}

/** A real `sidekiq` server process running test/interop/ruby/jobs.rb. */
export class SidekiqServer {
  private stderr = '';

  private constructor(private readonly child: ChildProcess) {
    child.stderr?.on('data', (d) => (this.stderr += String(d)));
    child.stdout?.on('data', (d) => (this.stderr += String(d)));
  }

  static start(redisUrl: string, queues: string[] = ['default']): SidekiqServer {
    const args = ['-r', path.join(RUBY_DIR, 'jobs.rb'), '-c', '2', '-t', '2', ...queues.flatMap((q) => ['-q', q])];
    return new SidekiqServer(
      spawn(SIDEKIQ, args, { env: { ...process.env, REDIS_URL: redisUrl }, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
  }

  get output(): string {
    return this.stderr;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 8000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * Inside a `describe`: a private redis-server for Sidekiq's unprefixed keys, flushed before each
 * test; the suite is skipped when Sidekiq is not installed.
 */
export function useSidekiqRedis(): { readonly url: string } {
  requireTool({ name: "Ruby's Sidekiq", missing: sidekiqMissing, install: 'apt-get install ruby-sidekiq' });
  let server: RedisServer | undefined;
  before(async () => {
    server = await RedisServer.start();
  });
  after(async () => {
    await server?.stop();
  });
  beforeEach(async () => {
    const redis = new Redis(server!.url);
    await redis.flushall();
    redis.disconnect();
  });
  return {
    get url() {
      return server!.url;
    },
  };
}
