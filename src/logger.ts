// The one logger factory. Every actor takes a child of the node's logger, tagged with its name.
import winston from 'winston';
import type { LogFormat, LogLevel } from '../config/defaults';

export type Logger = winston.Logger;

export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** Fields added to every line, e.g. the node id. */
  defaultMeta?: Record<string, unknown>;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const format =
    options.format === 'json'
      ? winston.format.combine(winston.format.timestamp(), winston.format.json())
      : winston.format.combine(
          winston.format.timestamp(),
          winston.format.printf(({ timestamp, level, message, actor, ...rest }) => {
            const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
            return `${timestamp} ${level.padEnd(5)} ${actor ? `[${actor}] ` : ''}${message}${extra}`;
          }),
        );
  return winston.createLogger({
    level: options.level ?? 'info',
    format,
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
