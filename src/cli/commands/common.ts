// What every admin command shares: connection flags, a producer-mode Nexq, and output as aligned
// plain-text tables or JSON. What they read and do is in src/admin, shared with the web dashboard.
import winston from 'winston';
import type { NexqConfig } from '../../../config/defaults';
import { fileAndEnv, LayeredConfig, setFromFlag, unknownEnvWarnings, validateLayers } from '../../../config/load';
import { ConfigError } from '../../../config/validate';
import { Nexq } from '../../nexq';
import type { AdminContext } from '../../admin/context';
import { checkFlags, ParsedArgs, UsageError } from '../args';
import { layRedisFlagsOver, REDIS_FLAG_NAMES, REDIS_FLAGS_HELP } from '../redis-flags';

export const CONNECTION_HELP = `${REDIS_FLAGS_HELP}
  --namespace NS              key prefix (default: $NEXQ_NAMESPACE or exq; '' for Sidekiq's layout)
  --config FILE               JSON or YAML file of options (only redis and namespace matter here)
  --json                      print JSON instead of a table
  --help                      this text`;

const CONNECTION_FLAGS = [...REDIS_FLAG_NAMES, 'namespace', 'config', 'json', 'help'];

/** Refuses flags `command` does not know, before anything connects. */
export function checkCommandFlags(args: ParsedArgs, command: Command): void {
  checkFlags(args, [...CONNECTION_FLAGS, ...(command.flags ?? [])]);
}
/** Flags that take no value, for every command. */
export const BOOLEAN_FLAGS = new Set(['json', 'help', 'all', 'dead', 'yes']);

/** How long a command waits for Redis before giving up (a node waits forever; a command should not). */
const CONNECT_TIMEOUT_MS = 2000;

export interface Command {
  /** One line for `nexq --help`. */
  summary: string;
  help: string;
  /** Flags besides the connection ones. */
  flags?: string[];
  run(args: ParsedArgs, out: Output): Promise<number>;
}

/** A command's producer-mode node, and its context for the admin functions (src/admin). */
export interface Session extends AdminContext {
  nexq: Nexq;
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
  if (!Number.isSafeInteger(Number(value)))
    throw new UsageError(`--${flag} must be a whole number up to ${Number.MAX_SAFE_INTEGER}, got ${value}`);
  return Number(value);
}

/** Exactly `count` positional arguments (`names` for the message), else a usage error. */
export function positionals(args: ParsedArgs, command: string, names: string[], optional = 0): string[] {
  const n = args.positional.length;
  if (n < names.length - optional || n > names.length) {
    throw new UsageError(
      `${command} takes ${names.map((x) => `<${x}>`).join(' ')}, got ${n} argument(s) (see nexq ${command} --help)`,
    );
  }
  return args.positional;
}

/** The connection config: file < environment < flags, as for `nexq start`, checked the same way. */
export function connectionConfig(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): NexqConfig {
  return connectionLayers(args, env).config;
}

/** The same, with where each option came from. */
function connectionLayers(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): LayeredConfig {
  for (const warning of unknownEnvWarnings(env)) process.stderr.write(`nexq: ${warning}\n`);
  const layers = fileAndEnv(flagText(args, 'config'), env);
  layRedisFlagsOver(layers, (name) => flagText(args, name));
  setFromFlag(layers, 'namespace', flagText(args, 'namespace'), '--namespace');
  const { config } = layers;
  // A producer only; the queues, jobs and metrics of a worker node do not apply.
  delete config.queues;
  delete config.jobsDir;
  delete config.jobs;
  delete config.metrics;
  delete config.web;
  config.mode = 'enqueuer';
  validateLayers(layers);
  return layers;
}

/** Opens a producer-mode Nexq for the command, and stops it when `body` is done. */
export async function withNexq<T>(args: ParsedArgs, body: (s: Session) => Promise<T>): Promise<T> {
  const { config, sources } = connectionLayers(args);
  let nexq: Nexq;
  try {
    // The node's own log lines would break the one-line-error contract; NEXQ_LOG_LEVEL brings them back.
    const logger = process.env.NEXQ_LOG_LEVEL ? undefined : winston.createLogger({ silent: true });
    // An unreachable Redis: one line naming the address and why (ECONNREFUSED ...), exit 1.
    nexq = await Nexq.startLayered(
      { ...config, ...(logger ? { logger } : {}), redisStartTimeout: CONNECT_TIMEOUT_MS },
      sources,
    );
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  try {
    const { redis, keys, config, registry, encryption } = nexq.node.ctx;
    return await body({ nexq, redis, keys, config, registry, encryption });
  } finally {
    await nexq.stop().catch(() => {});
  }
}

export interface Output {
  json: boolean;
  write: (text: string) => void;
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
  for (const row of cells)
    out.write(`${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join('  ')}\n`);
}

/** Cuts a long cell for the table; JSON output keeps everything. */
export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
