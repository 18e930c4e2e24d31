// What every admin command shares: connection flags, a producer-mode Nexq, job decoding and
// output as aligned plain-text tables or JSON.
import winston from 'winston';
import type { NexqConfig } from '../../../config/defaults';
import { configFromFileAndEnv } from '../../../config/load';
import { ConfigError } from '../../../config/validate';
import { readSeconds } from '../../job/time';
import { Nexq } from '../../nexq';
import type { Keys } from '../../redis/keys';
import type { ScriptedRedis } from '../../redis/scripts';
import { checkFlags, ParsedArgs, UsageError } from '../args';
import { layRedisFlags, REDIS_FLAG_NAMES, REDIS_FLAGS_HELP } from '../redis-flags';

export const CONNECTION_HELP = `${REDIS_FLAGS_HELP}
  --namespace NS              key prefix (default: $NEXQ_NAMESPACE or exq; '' for Sidekiq's layout)
  --config FILE               JSON file of options (only redis and namespace matter here)
  --json                      print JSON instead of a table
  --help                      this text`;

const CONNECTION_FLAGS = [...REDIS_FLAG_NAMES, 'namespace', 'config', 'json', 'help'];

/** Refuses flags `command` does not know, before anything connects. */
export function checkCommandFlags(args: ParsedArgs, command: Command): void {
  checkFlags(args, [...CONNECTION_FLAGS, ...(command.flags ?? [])]);
}
/** Flags that take no value, for every command. */
export const BOOLEAN_FLAGS = new Set(['json', 'help', 'all']);

/** How long a command waits for Redis before giving up (a node waits forever; a command should not). */
const CONNECT_TIMEOUT_MS = 10_000;

export interface Command {
  /** One line for `nexq --help`. */
  summary: string;
  help: string;
  /** Flags besides the connection ones. */
  flags?: string[];
  run(args: ParsedArgs, out: Output): Promise<number>;
}

export interface Session {
  nexq: Nexq;
  redis: ScriptedRedis;
  keys: Keys;
}

export function flagText(args: ParsedArgs, flag: string): string | undefined {
  const value = args.flags.get(flag);
  if (value === true) throw new UsageError(`--${flag} needs a value`);
  return value;
}

export function wholeNumber(args: ParsedArgs, flag: string, fallback: number): number {
  const value = flagText(args, flag);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** Exactly `count` positional arguments (`names` for the message), else a usage error. */
export function positionals(args: ParsedArgs, command: string, names: string[], optional = 0): string[] {
  const n = args.positional.length;
  if (n < names.length - optional || n > names.length) {
    throw new UsageError(`${command} takes ${names.map((x) => `<${x}>`).join(' ')}, got ${n} argument(s) (see nexq ${command} --help)`);
  }
  return args.positional;
}

/** The connection config: file < environment < flags, as for `nexq start`. */
export function connectionConfig(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): NexqConfig {
  const file = flagText(args, 'config');
  const config = configFromFileAndEnv(file, env);
  layRedisFlags(config, (name) => flagText(args, name));
  const namespace = flagText(args, 'namespace');
  if (namespace !== undefined) config.namespace = namespace;
  // A producer only; the queues and jobs of a worker node do not apply.
  delete config.queues;
  delete config.jobsDir;
  delete config.jobs;
  config.mode = 'enqueuer';
  return config;
}

/** Opens a producer-mode Nexq for the command, and stops it when `body` is done. */
export async function withNexq<T>(args: ParsedArgs, body: (s: Session) => Promise<T>): Promise<T> {
  const config = connectionConfig(args);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`cannot reach Redis within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
  });
  let nexq: Nexq;
  try {
    // The node's own log lines would break the one-line-error contract; NEXQ_LOG_LEVEL brings them back.
    const logger = process.env.NEXQ_LOG_LEVEL ? undefined : winston.createLogger({ silent: true });
    nexq = await Promise.race([Nexq.start({ ...config, ...(logger ? { logger } : {}) }), timeout]);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  } finally {
    clearTimeout(timer);
  }
  try {
    return await body({ nexq, redis: nexq.node.ctx.redis as ScriptedRedis, keys: nexq.node.ctx.keys });
  } finally {
    await nexq.stop().catch(() => {});
  }
}

export interface Output {
  json: boolean;
  write(text: string): void;
}

export function outputFor(args: ParsedArgs): Output {
  return { json: args.flags.has('json'), write: (text) => process.stdout.write(text) };
}

export function printJson(out: Output, value: unknown): void {
  out.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** An aligned plain-text table; `(none)` when there are no rows. */
export function printTable(out: Output, headers: string[], rows: Array<Array<string | number>>): void {
  if (rows.length === 0) {
    out.write('(none)\n');
    return;
  }
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  for (const row of cells) out.write(`${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join('  ')}\n`);
}

/** Cuts a long cell for the table; JSON output keeps everything. */
export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function isoOf(seconds: number | undefined): string | null {
  return seconds === undefined ? null : new Date(seconds * 1000).toISOString();
}

/** A job as the listing commands show it; a raw entry that is not a JSON object keeps its text. */
export interface JobView {
  jid: string | null;
  class: string | null;
  queue: string | null;
  args: unknown;
  enqueued_at: string | null;
  at?: string | null;
  retry_count?: number | null;
  error_class?: string | null;
  error_message?: string | null;
  failed_at?: string | null;
  raw?: string;
}

export function parseEntry(raw: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);

export function jobView(raw: string, score?: number): JobView {
  const job = parseEntry(raw);
  if (!job) return { jid: null, class: null, queue: null, args: null, enqueued_at: null, raw };
  const view: JobView = { jid: str(job.jid), class: str(job.class), queue: str(job.queue), args: job.args ?? null, enqueued_at: isoOf(readSeconds(job.enqueued_at)) };
  if (score !== undefined) {
    view.at = isoOf(score);
    view.retry_count = typeof job.retry_count === 'number' ? job.retry_count : null;
    view.error_class = str(job.error_class);
    view.error_message = str(job.error_message);
    view.failed_at = isoOf(readSeconds(job.failed_at));
  }
  return view;
}
