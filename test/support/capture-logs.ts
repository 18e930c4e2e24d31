// A winston logger at debug level whose every line a test can read, to check what reaches logs.
import { Writable } from 'node:stream';
import winston from 'winston';

export function captureLogs(): { logger: winston.Logger; text: () => string } {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  return {
    logger: winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] }),
    text: () => lines.join(''),
  };
}
