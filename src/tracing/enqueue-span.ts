// The producer side of tracing: with `@opentelemetry/api` present, an enqueue runs in a producer span
// `send <queue>` started in the caller's context (so it nests under, say, the HTTP request that
// enqueues), and the span's context is written into each job (`traceparent`, `tracestate`), which
// the worker thread continues (workers/otel.ts). Started here, on the caller's side of the
// Enqueuer actor: the actor's mailbox does not carry the caller's context. Without OpenTelemetry
// the requests go through untouched.
import type { EnqueueResult } from '../actors/enqueuer';
import type { EnqueueRequest } from '../job/new-jobs';
import { inSpan, MESSAGING_SYSTEM, otel } from '../../workers/otel';

export async function tracedEnqueue(
  requests: EnqueueRequest[],
  enqueue: (requests: EnqueueRequest[]) => Promise<EnqueueResult[]>,
): Promise<EnqueueResult[]> {
  const api = otel();
  if (!api || !Array.isArray(requests) || requests.length === 0) return enqueue(requests);
  // JavaScript callers can pass anything: what is not a job is refused by the enqueue itself.
  const queues = [...new Set(requests.map((r: unknown) => (r as { queue?: unknown } | null)?.queue))];
  const destination = queues.length === 1 && typeof queues[0] === 'string' ? queues[0] : undefined;
  const span = api.trace.getTracer('nexq').startSpan(destination ? `send ${destination}` : 'send', {
    kind: api.SpanKind.PRODUCER,
    attributes: {
      'messaging.system': MESSAGING_SYSTEM,
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      ...(destination === undefined ? {} : { 'messaging.destination.name': destination }),
      ...(requests.length > 1 ? { 'messaging.batch.message_count': requests.length } : {}),
      ...(requests.length === 1 && typeof requests[0]?.class === 'string'
        ? { 'messaging.nexq.job.class': requests[0].class }
        : {}),
    },
  });
  const context = api.trace.setSpan(api.context.active(), span);
  const trace: Record<string, string> = {};
  api.propagation.inject(context, trace);
  const traced = Object.keys(trace).length ? requests.map((r) => ({ ...r, trace })) : requests;
  return inSpan(api, span, context, async () => {
    const results = await enqueue(traced);
    if (results.length === 1) span.setAttribute('messaging.message.id', results[0].jid);
    return results;
  });
}

/**
 * The caller's trace context as job fields (`traceparent`, ...), for a job enqueued later on the
 * caller's behalf (a batch's callbacks); undefined without OpenTelemetry or an active trace.
 */
export function activeTrace(): Record<string, string> | undefined {
  const api = otel();
  if (!api) return undefined;
  const trace: Record<string, string> = {};
  api.propagation.inject(api.context.active(), trace);
  return Object.keys(trace).length ? trace : undefined;
}
