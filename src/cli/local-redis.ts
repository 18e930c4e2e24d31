// For `npm start` on a fresh machine: when no Redis answers at a local address, start
// redis-server with its data under ./var/ and stop it when the node stops.
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const PING_TIMEOUT_MS = 1000;

/** True when something at host:port answers PING like a Redis (or asks for auth, like one). */
export function redisAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(PING_TIMEOUT_MS, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(/^(\+PONG|-NOAUTH|-ERR)/.test(data.toString())));
  });
}

export interface LocalRedis {
  url: string;
  stop(): Promise<void>;
}

/** Starts redis-server on 127.0.0.1:port with AOF data in `dataDir`. */
export async function startLocalRedis(port: number, dataDir: string = path.resolve('var')): Promise<LocalRedis> {
  mkdirSync(dataDir, { recursive: true });
  let child: ChildProcess;
  try {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dataDir,
        '--appendonly',
        'yes',
        '--logfile',
        'redis.log',
      ],
      {
        stdio: 'ignore',
        // Its own process group: Ctrl-C reaches the node, which stops Redis only after settling its jobs.
        detached: true,
      },
    );
  } catch (err) {
    throw new Error(
      `cannot start redis-server (${(err as Error).message}); install it (apt-get install redis-server) or set REDIS_URL`,
    );
  }
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err) =>
      reject(
        new Error(
          `cannot start redis-server (${err.message}); install it (apt-get install redis-server) or set REDIS_URL`,
        ),
      ),
    );
    child.once('exit', (code) =>
      reject(new Error(`redis-server exited with code ${code}; see ${path.join(dataDir, 'redis.log')}`)),
    );
  });
  const ready = (async () => {
    for (let i = 0; i < 100; i++) {
      if (await redisAnswers('127.0.0.1', port)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`redis-server on port ${port} did not answer within 10 s`);
  })();
  await Promise.race([ready, failed]);
  failed.catch(() => {});
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
