// MONITOR on a connection of its own, for tests that check which connection sent a command.
// ioredis flips a connection to "monitoring" a microtask after MONITOR's reply, so a command that
// another client sends in that moment can arrive in the same read, find no command waiting for it,
// and fail the start ("Command queue state error"): that start is given up and tried again.
import type Redis from 'ioredis';

export async function monitorOf(redis: Redis): Promise<Redis> {
  for (let attempt = 1; ; attempt++) {
    const monitor = redis.duplicate({ monitor: true, lazyConnect: true });
    try {
      await new Promise<void>((resolve, reject) => {
        monitor.once('monitoring', () => resolve());
        monitor.once('error', reject);
        monitor.connect().catch(reject);
      });
      monitor.on('error', () => {}); // a line that still races in is dropped, not thrown
      return monitor;
    } catch (err) {
      monitor.disconnect();
      if (attempt >= 5 || !/Command queue state error/.test((err as Error).message)) throw err;
    }
  }
}
