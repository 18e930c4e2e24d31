// The one logger factory. Every actor takes a child of the node's logger, tagged with its name.
import winston from 'winston';
import type { LogFormat, LogLevel } from '../../config/defaults';

export type Logger = winston.Logger;

export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** Fields added to every line, e.g. the node id. */
  defaultMeta?: Record<string, unknown>;
}

/**
 * Fields a pretty line leaves out: the node is the same on every line, a job's `[job:<jid>]` tag and
 * text name it already. JSON lines carry them all (see src/run/logging-middleware.ts).
 */
const PRETTY_OMITS = new Set(['node', 'jid', 'class', 'queue', 'retryCount', 'durationMs', 'error']);

/** What nexq's lines carry: `timestamp()` adds the time; every call passes text and an actor's name. */
type LineInfo = winston.Logform.TransformableInfo & { timestamp: string; message: string; actor?: string };

/** A pretty line: time, level, `[actor]`, the text, other fields as JSON, then a failure's stack frames. */
function prettyLine(info: winston.Logform.TransformableInfo): string {
  const { timestamp, level, message, actor, error, ...rest } = info as LineInfo;
  const fields = Object.fromEntries(Object.entries(rest).filter(([key]) => !PRETTY_OMITS.has(key)));
  const extra = Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : '';
  const stack = (error as { stack?: unknown } | undefined)?.stack;
  const frames = typeof stack === 'string' ? stack.split('\n').filter((line) => /^\s+at /.test(line)) : [];
  return `${timestamp} ${level.padEnd(5)} ${actor ? `[${actor}] ` : ''}${message}${extra}${frames.map((f) => `\n${f}`).join('')}`;
}

/** The lines of `logFormat`: one JSON object each, or pretty text. */
export function logFormat(format: LogFormat = 'pretty'): winston.Logform.Format {
  const render = format === 'json' ? winston.format.json() : winston.format.printf(prettyLine);
  return winston.format.combine(winston.format.timestamp(), render);
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return winston.createLogger({
    level: options.level ?? 'info',
    format: logFormat(options.format),
    defaultMeta: options.defaultMeta,
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
  });
}

/** The URL with any password replaced, safe for logs and error messages. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable redis url>';
  }
}

/** An error as log fields, for the `error` field of a line (its stack printed after a pretty line). */
export function errorFields(err: unknown): { class: string; message: string; stack?: string } {
  if (!(err instanceof Error)) return { class: typeof err, message: String(err) };
  return { class: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}) };
}
