import { expect } from 'chai';
import { Writable } from 'node:stream';
import winston from 'winston';
import { redactRedisUrl } from '../src/runtime/logger';
import { useNodes } from './support/node';
import { RedisServer } from './support/redis-server';

describe('logging', () => {
  it('redacts the password of a Redis URL', () => {
    expect(redactRedisUrl('redis://user:hunter2@host:6380/2')).to.equal('redis://user:***@host:6380/2');
    expect(redactRedisUrl('rediss://:hunter2@host')).not.to.include('hunter2');
    expect(redactRedisUrl('redis://host:6379')).to.equal('redis://host:6379');
  });

  describe('a node on a Redis with a password', () => {
    let server: RedisServer;
    before(async () => {
      server = await RedisServer.start({ args: ['--requirepass', 'pw-Zq81'] });
    });
    after(() => server.stop());
    const t = useNodes({ url: () => `redis://:pw-Zq81@127.0.0.1:${server.port}` });

    it('connects with it and never writes it to the log', async () => {
      const lines: string[] = [];
      const sink = new Writable({
        write: (chunk, _enc, done) => {
          lines.push(String(chunk));
          done();
        },
      });
      const logger = winston.createLogger({
        level: 'debug',
        format: winston.format.json(),
        transports: [new winston.transports.Stream({ stream: sink })],
      });
      const nexq = await t.start({ logger, logLevel: 'debug' });
      await nexq.enqueue('default', 'Fail', []);
      await nexq.enqueue('default', 'NoSuchClass', []);
      await t.stop(nexq);
      const log = lines.join('');
      expect(log).to.include(`redis://:***@127.0.0.1:${server.port}`);
      expect(log).to.include('node stopped');
      expect(log).not.to.include('pw-Zq81');
    });
  });
});
