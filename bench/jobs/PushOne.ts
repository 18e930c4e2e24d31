// W8's job one at a time: one RPUSH of its index to the list `key`.
import { redisAt } from './redis-out';

export async function perform(index: number, url: string, key: string): Promise<void> {
  await redisAt(url).rpush(key, index);
}
