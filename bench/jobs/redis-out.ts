// W8's jobs write where the bench reads: one ioredis client per thread and Redis URL.
import Redis from 'ioredis';

const clients = new Map<string, Redis>();

export function redisAt(url: string): Redis {
  let client = clients.get(url);
  if (!client) {
    client = new Redis(url);
    client.on('error', () => undefined); // reconnects by itself
    clients.set(url, client);
  }
  return client;
}
