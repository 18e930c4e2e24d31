// The Prometheus endpoint, scraped over real HTTP after real jobs ran on worker threads.
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Nexq } from '../../src/nexq';
import { useNodes, waitFor } from '../support/node';

interface Response {
  status: number;
  type: string;
  body: string;
}

function get(port: number, path = '/metrics'): Promise<Response> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d) => (body += String(d)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
      })
      .on('error', reject);
  });
}

/** The value of one sample, by metric name and labels (each `key="value"` must appear), or undefined. */
function sample(body: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

const CLUSTER_GAUGES = [
  'nexq_queue_size',
  'nexq_queue_latency_seconds',
  'nexq_retry_set_size',
  'nexq_dead_set_size',
  'nexq_scheduled_set_size',
];

function portOf(node: Nexq): number {
  const address = node.node.metricsAddress;
  if (!address) throw new Error('no metrics server');
  return address.port;
}

describe('Prometheus metrics', () => {
  const t = useNodes();

  it('counts processed and failed jobs per class, their durations, and reads queue and set sizes', async () => {
    const node = await t.start({ metrics: { port: 0 }, maxRetries: 3 });
    for (const n of [1, 2, 3]) await node.enqueue('default', 'Record', [t.url, t.out('ok'), n]);
    await node.enqueue('default', 'Fail', ['to retry']);
    await node.enqueue('default', 'Fail', ['to dead'], { retry: 0 });
    await waitFor(
      async () =>
        (await t.redis.zcard(t.keys.retry('default'))) === 1 && (await t.redis.zcard(t.keys.dead('default'))) === 1,
      10_000,
      'the failures filed',
    );
    await node.drain();
    // A queue nobody serves, whose oldest job was enqueued 100 s ago.
    const old = JSON.stringify({
      class: 'Record',
      args: [],
      jid: 'old-1',
      queue: 'backlog',
      enqueued_at: Date.now() / 1000 - 100,
    });
    await t.redis.multi().sadd(t.keys.queues, 'backlog').lpush(t.keys.queue('backlog'), old).exec();
    await node.enqueue('backlog', 'Record', []);

    const res = await get(portOf(node));
    expect(res.status).to.equal(200);
    expect(res.type).to.include('text/plain');
    const body = res.body;
    const nodeId = node.node.ctx.config.nodeId;
    expect(sample(body, 'nexq_jobs_processed_total', { queue: 'default', class: 'Record', node: nodeId })).to.equal(3);
    expect(sample(body, 'nexq_jobs_processed_total', { class: 'Fail' })).to.equal(2);
    expect(sample(body, 'nexq_jobs_failed_total', { class: 'Fail' })).to.equal(2);
    expect(sample(body, 'nexq_jobs_failed_total', { class: 'Record' })).to.equal(undefined);
    expect(sample(body, 'nexq_jobs_retried_total', { class: 'Fail' })).to.equal(1);
    expect(sample(body, 'nexq_jobs_dead_total', { class: 'Fail' })).to.equal(1);
    expect(sample(body, 'nexq_job_duration_seconds_count', { queue: 'default', class: 'Record' })).to.equal(3);
    expect(sample(body, 'nexq_job_duration_seconds_bucket', { class: 'Record', le: '+Inf' })).to.equal(3);
    expect(sample(body, 'nexq_queue_size', { queue: 'backlog' })).to.equal(2);
    expect(sample(body, 'nexq_queue_size', { queue: 'default' })).to.equal(0);
    expect(sample(body, 'nexq_queue_latency_seconds', { queue: 'backlog' })).to.be.at.least(100);
    expect(sample(body, 'nexq_retry_set_size')).to.equal(1);
    expect(sample(body, 'nexq_dead_set_size')).to.equal(1);
    expect(sample(body, 'nexq_scheduled_set_size')).to.equal(0);
    expect(sample(body, 'nexq_slots', { queue: 'default' })).to.equal(10);
    expect(sample(body, 'nexq_redis_up')).to.equal(1);
    // Redis runs on this machine: its clock and this one agree (clock-skew.chaos.ts shows ±45 s).
    expect(Math.abs(sample(body, 'nexq_clock_offset_seconds') ?? Infinity)).to.be.below(1);
    // Cluster-wide gauges carry no node label (summed over nodes they would count the backlog
    // once per node); what this node did or holds does.
    const series = body.split('\n').filter((l) => l.startsWith('nexq_'));
    for (const name of CLUSTER_GAUGES) {
      const lines = series.filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
      expect(lines, name).not.to.be.empty;
      for (const line of lines) expect(line, name).not.to.include('node=');
    }
    for (const line of series.filter((l) => !CLUSTER_GAUGES.some((name) => l.startsWith(name))))
      expect(line).to.include(`node="${nodeId}"`);
  });

  it('shows the busy slots of this node while a job runs', async () => {
    const node = await t.start({ metrics: { port: 0 }, shutdownTimeout: 100 });
    await node.enqueue('default', 'Record', [t.url, t.out('slow'), 1, 60_000]);
    const body = await waitFor(
      async () => {
        const scraped = (await get(portOf(node))).body;
        return sample(scraped, 'nexq_busy_slots', { queue: 'default' }) === 1 && scraped;
      },
      10_000,
      'one busy slot',
    );
    expect(sample(body, 'nexq_jobs_processed_total', { class: 'Record' })).to.equal(undefined);
  });

  it('labels a class without a handler as (unknown), so payloads cannot make up label values', async () => {
    const node = await t.start({ metrics: { port: 0 }, maxRetries: 0 });
    await node.enqueue('default', 'NoSuchClass123', []);
    await waitFor(async () => (await t.redis.zcard(t.keys.dead('default'))) === 1, 10_000, 'the dead job');
    await node.drain();
    const { body } = await get(portOf(node));
    expect(sample(body, 'nexq_jobs_failed_total', { class: '(unknown)' })).to.equal(1);
    expect(body).not.to.include('NoSuchClass123');
  });

  it('answers 404 off /metrics, keeps two nodes in one process apart, and closes on stop', async () => {
    const a = await t.start({ metrics: { port: 0 } });
    const b = await t.start({ metrics: { port: 0 }, queues: ['other'] });
    expect((await get(portOf(a), '/')).status).to.equal(404);
    await a.enqueue('default', 'Record', [t.url, t.out('a'), 1]);
    await t.waitForRecords(t.out('a'), 1, 10_000);
    await a.drain();
    expect(sample((await get(portOf(a))).body, 'nexq_jobs_processed_total', { class: 'Record' })).to.equal(1);
    expect(sample((await get(portOf(b))).body, 'nexq_jobs_processed_total', { class: 'Record' })).to.equal(undefined);
    const port = portOf(a);
    await t.stop(a);
    const refused = await get(port).then(
      () => 'answered',
      (err: unknown) => (err as NodeJS.ErrnoException).code,
    );
    expect(refused).to.equal('ECONNREFUSED');
  });

  it('fails the start with one clear error when the port is taken', async () => {
    const a = await t.start({ metrics: { port: 0 } });
    const error = await t.start({ metrics: { port: portOf(a) } }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error?.message).to.match(/^metrics: cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)$/);
  });

  it('serves the same metrics from any HTTP server through metrics.handler', async () => {
    const node = await t.start();
    const { handler } = node.metrics; // read now: metrics count from their first use
    const server = http.createServer((req, res) => {
      Promise.resolve(handler(req, res)).catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await node.enqueue('default', 'Fail', ['x'], { retry: 0 });
      await waitFor(async () => (await t.redis.zcard(t.keys.dead('default'))) === 1, 10_000, 'the dead job');
      await node.drain();
      const { body } = await get((server.address() as AddressInfo).port, '/anything');
      expect(sample(body, 'nexq_jobs_failed_total', { class: 'Fail' })).to.equal(1);
      expect(sample(body, 'nexq_dead_set_size')).to.equal(1);
    } finally {
      server.close();
    }
  });
});
