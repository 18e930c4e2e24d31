// A winston logger at debug level whose every line a test can read, to check what reaches logs:
// JSON lines by default, or a node's own format (src/runtime/logger.ts) with its node field.
import { Writable } from 'node:stream';
import winston from 'winston';
import type { LogFormat } from '../../config/defaults';
import { logFormat } from '../../src/runtime/logger';

export function captureLogs(format?: LogFormat): { logger: winston.Logger; text: () => string } {
  const lines: string[] = [];
  const sink = new Writable({
    write: (chunk, _enc, done) => {
      lines.push(String(chunk));
      done();
    },
  });
  return {
    logger: winston.createLogger({
      level: 'debug',
      format: format ? logFormat(format) : winston.format.json(),
      defaultMeta: format ? { node: 'test-node' } : undefined,
      transports: [new winston.transports.Stream({ stream: sink })],
    }),
    text: () => lines.join(''),
  };
}
