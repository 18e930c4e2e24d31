// A TCP proxy that makes a Redis slow, for tests: every chunk is forwarded `delayMs` after it
// arrived, in each direction, in order; `stall(ms)` holds every byte of every connection (both
// ways, already queued ones too) until the stall ends, as a Redis busy with a slow command or a
// congested link would. Nothing is dropped: a connection closed on one side is closed on the other
// once what it sent before has been forwarded.
import net from 'node:net';

interface Pending {
  at: number;
  data: Buffer | null; // null: the sender closed, end the other side
}

/** One direction of one connection: chunks leave `delayMs` after they came, never out of order. */
class DelayedPipe {
  private readonly queue: Pending[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly proxy: DelayProxy,
    private readonly to: net.Socket,
  ) {}

  push(data: Buffer | null): void {
    const last = this.queue.at(-1)?.at ?? 0;
    this.queue.push({ at: Math.max(Date.now() + this.proxy.delayMs, last), data });
    this.schedule();
  }

  /** Arms the timer for the head of the queue (or for the end of a stall). */
  schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const head = this.queue[0] as Pending | undefined;
    if (!head) return;
    const due = Math.max(head.at, this.proxy.stalledUntil);
    this.timer = setTimeout(() => this.flush(), Math.max(0, due - Date.now()));
  }

  private flush(): void {
    const now = Date.now();
    if (now < this.proxy.stalledUntil) {
      this.schedule();
      return;
    }
    while (this.queue.length > 0 && this.queue[0].at <= now) {
      const { data } = this.queue.shift()!;
      if (this.to.destroyed) continue;
      if (data === null) this.to.end();
      else this.to.write(data);
    }
    this.schedule();
  }

  close(): void {
    clearTimeout(this.timer);
    this.queue.length = 0;
  }
}

export class DelayProxy {
  /** Epoch ms until which nothing is forwarded. */
  stalledUntil = 0;
  private readonly pipes = new Set<DelayedPipe>();
  private readonly sockets = new Set<net.Socket>();
  /** Connections accepted so far (a reconnecting client shows up here). */
  connections = 0;
  /** Connections from this one on (1 is the first) are closed as they arrive, until it is set back to Infinity. */
  refuseFrom = Infinity;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    public delayMs: number,
  ) {}

  /** Listens on a free loopback port and forwards to `targetPort` on 127.0.0.1. */
  static async start(targetPort: number, delayMs = 0): Promise<DelayProxy> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const proxy = new DelayProxy(server, (server.address() as net.AddressInfo).port, delayMs);
    server.on('connection', (client) => proxy.accept(client, targetPort));
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Holds every byte, both ways, for `ms` from now (a later stall may extend it). */
  stall(ms: number): void {
    this.stalledUntil = Math.max(this.stalledUntil, Date.now() + ms);
    for (const pipe of this.pipes) pipe.schedule();
  }

  private accept(client: net.Socket, targetPort: number): void {
    this.connections++;
    if (this.connections >= this.refuseFrom) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const up = new DelayedPipe(this, upstream);
    const down = new DelayedPipe(this, client);
    this.pipes.add(up).add(down);
    this.sockets.add(client).add(upstream);
    client.on('data', (d) => up.push(d));
    upstream.on('data', (d) => down.push(d));
    client.on('end', () => up.push(null));
    upstream.on('end', () => down.push(null));
    const teardown = () => {
      up.close();
      down.close();
      this.pipes.delete(up);
      this.pipes.delete(down);
      this.sockets.delete(client);
      this.sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', teardown);
    upstream.on('error', teardown);
    // A side that closed without ending cleanly takes the other down; a clean close only leaves.
    client.on('close', () => (client.readableEnded ? this.sockets.delete(client) : teardown()));
    upstream.on('close', () => (upstream.readableEnded ? this.sockets.delete(upstream) : teardown()));
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    for (const pipe of this.pipes) pipe.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
