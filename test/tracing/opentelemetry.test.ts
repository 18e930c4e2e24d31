// OpenTelemetry, end to end with the SDK's in-memory exporter: the enqueue's producer span on the
// main thread, the consumer span on a worker thread (its own tracer provider, from threadSetup)
// continuing the trace from the job's `traceparent`, the handler's own spans under it, and a retry
// continuing the same trace. The main thread's provider is registered for these tests only.
import { expect } from 'chai';
import path from 'node:path';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { repoRoot } from '../support/paths';
import { useNodes, waitFor } from '../support/node';

const jobsDir = path.join(repoRoot, 'test', 'fixtures', 'otel-jobs');
const threadSetup = path.join(repoRoot, 'test', 'fixtures', 'otel-thread-setup.js');

interface ThreadSpan {
  name: string;
  kind: SpanKind;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  status: SpanStatusCode;
}

describe('OpenTelemetry tracing', () => {
  const t = useNodes();
  const exporter = new InMemorySpanExporter();
  let key = '';

  before(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  });
  after(() => {
    trace.disable();
    propagation.disable();
    context.disable();
    delete process.env.NEXQ_TEST_OTEL_REDIS;
    delete process.env.NEXQ_TEST_OTEL_KEY;
  });

  beforeEach(() => {
    exporter.reset();
    key = t.out('spans');
    // Read by the thread setup module: a worker thread gets a copy of the environment as it starts.
    process.env.NEXQ_TEST_OTEL_REDIS = t.url;
    process.env.NEXQ_TEST_OTEL_KEY = key;
  });

  const threadSpans = async (count: number): Promise<ThreadSpan[]> => {
    await waitFor(async () => (await t.redis.llen(key)) >= count, 10_000, `${count} spans from the threads`);
    return (await t.redis.lrange(key, 0, -1)).map((s) => JSON.parse(s) as ThreadSpan);
  };

  it('makes one trace from the enqueue to the handler on a thread, the handler’s own spans inside', async () => {
    const node = await t.start({ jobsDir, threadSetup });
    const tracer = trace.getTracer('test');
    const jid = await tracer.startActiveSpan('request', async (span) => {
      try {
        return await node.enqueue('default', 'Traced', []);
      } finally {
        span.end();
      }
    });
    const spans = await threadSpans(2);
    const [request, send] = ['request', 'send default'].map((name) =>
      exporter.getFinishedSpans().find((s) => s.name === name),
    );
    expect(send?.kind).to.equal(SpanKind.PRODUCER);
    expect(send?.parentSpanContext?.spanId).to.equal(request?.spanContext().spanId);
    expect(send?.attributes).to.deep.include({
      'messaging.system': 'nexq',
      'messaging.operation.type': 'send',
      'messaging.destination.name': 'default',
      'messaging.message.id': jid,
    });
    const process_ = spans.find((s) => s.name === 'process default');
    const work = spans.find((s) => s.name === 'work');
    expect(process_?.kind).to.equal(SpanKind.CONSUMER);
    expect(process_?.traceId).to.equal(request?.spanContext().traceId);
    expect(process_?.parentSpanId).to.equal(send?.spanContext().spanId);
    expect(process_?.attributes).to.deep.include({
      'messaging.system': 'nexq',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'default',
      'messaging.message.id': jid,
      'messaging.nexq.job.class': 'Traced',
      'messaging.nexq.retry_count': 0,
    });
    expect(work?.traceId).to.equal(process_?.traceId);
    expect(work?.parentSpanId).to.equal(process_?.spanId);
  });

  it('traces a batch’s jobs and its callback in the trace of the code that made the batch', async () => {
    const node = await t.start({ jobsDir, threadSetup });
    const tracer = trace.getTracer('test');
    const request = await tracer.startActiveSpan('request', async (span) => {
      try {
        await node.batch({ onComplete: { queue: 'default', class: 'Traced' } }).enqueueAll([
          { queue: 'default', class: 'Traced', args: [] },
          { queue: 'default', class: 'Traced', args: [] },
        ]);
        return span;
      } finally {
        span.end();
      }
    });
    // Two members, then the callback: a consumer span and a `work` span each.
    const spans = await threadSpans(6);
    const traceId = request.spanContext().traceId;
    const send = exporter.getFinishedSpans().find((s) => s.name === 'send default');
    expect(send?.kind).to.equal(SpanKind.PRODUCER);
    expect(send?.parentSpanContext?.spanId).to.equal(request.spanContext().spanId);
    expect(send?.attributes['messaging.batch.message_count']).to.equal(2);
    const runs = spans.filter((s) => s.name === 'process default');
    expect(runs).to.have.length(3);
    for (const span of spans) expect(span.traceId).to.equal(traceId);
    // The members run under the producer span, the callback under the span that made the batch.
    const parents = runs.map((s) => s.parentSpanId).sort();
    const sendId = send?.spanContext().spanId as string;
    expect(parents).to.deep.equal([sendId, sendId, request.spanContext().spanId].sort());
  });

  it('continues the same trace on a retry, the failed run’s span marked as an error', async () => {
    const node = await t.start({ jobsDir, threadSetup });
    const jid = await node.enqueue('default', 'FailFirst', []);
    const [first] = await threadSpans(1);
    expect(first.status).to.equal(SpanStatusCode.ERROR);
    // Run the retry now rather than after its backoff.
    await waitFor(async () => (await t.redis.zcard(t.keys.retry('default'))) === 1, 10_000, 'the retry');
    await t.redis.zadd(t.keys.retry('default'), '0', (await t.redis.zrange(t.keys.retry('default'), 0, 0))[0]);
    const [, second] = await threadSpans(2);
    const send = exporter.getFinishedSpans().find((s) => s.name === 'send default');
    for (const run of [first, second]) {
      expect(run.traceId).to.equal(send?.spanContext().traceId);
      expect(run.parentSpanId).to.equal(send?.spanContext().spanId);
      expect(run.attributes['messaging.message.id']).to.equal(jid);
    }
    expect(second.status).to.not.equal(SpanStatusCode.ERROR);
    expect(second.attributes['messaging.nexq.retry_count']).to.equal(1);
  });

  it('continues a trace a Sidekiq producer wrote in the job’s traceparent field', async () => {
    await t.start({ jobsDir, threadSetup });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const job = { class: 'FailFirst', args: [], queue: 'default', jid: 'from-ruby', retry: false, retry_count: 1 };
    await t.redis.lpush(t.keys.queue('default'), JSON.stringify({ ...job, traceparent: `00-${traceId}-${parent}-01` }));
    const [span] = await threadSpans(1);
    expect(span).to.include({ traceId, parentSpanId: parent, name: 'process default' });
  });

  it('writes no trace fields when no propagator is registered', async () => {
    propagation.disable();
    try {
      const node = await t.start({ queues: [] });
      await node.enqueue('default', 'Traced', []);
      const [raw] = await t.redis.lrange(t.keys.queue('default'), 0, -1);
      expect(JSON.parse(raw)).to.not.have.property('traceparent');
    } finally {
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    }
  });
});
