// W8's job in chunks of 100 (performMany): one RPUSH of every job's index to the list `key`.
import { redisAt } from './redis-out';

export const chunk = { size: 100, waitMs: 50 };

export async function performMany(argsList: Array<[index: number, url: string, key: string]>): Promise<null[]> {
  const [, url, key] = argsList[0];
  await redisAt(url).rpush(key, ...argsList.map(([index]) => index));
  return argsList.map(() => null);
}
