// OpenTelemetry, when the application has `@opentelemetry/api` (an optional peer dependency): loaded
// lazily, once, so a process without it pays one failed require and nothing per job. The attributes
// follow OpenTelemetry's messaging semantic conventions; the trace context travels in the job's
// own top-level fields `traceparent` and `tracestate` (W3C), where Ruby's
// opentelemetry-instrumentation-sidekiq puts and looks for it (it injects into the job hash), so
// traces cross between nexq and Sidekiq either way. Exq ignores and keeps the fields.
import type * as OtelApi from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import type { JobPayload } from '../src/job/job';

export type Otel = typeof OtelApi;

/** `messaging.system`: OpenTelemetry's conventions name no value for nexq, so its own name. */
export const MESSAGING_SYSTEM = 'nexq';

let loaded: Otel | null | undefined;

/** The application's `@opentelemetry/api`, or undefined when it has none. */
export function otel(): Otel | undefined {
  if (loaded === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require('@opentelemetry/api') as Otel;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/**
 * Runs `perform` inside a consumer span `process <queue>` that continues the trace the job carries
 * (its producer's span is the parent), so the spans of the handler's own instrumented calls nest
 * under it. Without OpenTelemetry it just runs `perform`.
 */
export async function inProcessSpan<T>(job: JobPayload, className: string, perform: () => T | Promise<T>): Promise<T> {
  const api = otel();
  if (!api) return perform();
  const parent = api.propagation.extract(api.ROOT_CONTEXT, job);
  const span = api.trace.getTracer('nexq').startSpan(
    `process ${job.queue}`,
    {
      kind: api.SpanKind.CONSUMER,
      attributes: {
        'messaging.system': MESSAGING_SYSTEM,
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.destination.name': job.queue,
        'messaging.message.id': job.jid,
        'messaging.nexq.job.class': className,
        'messaging.nexq.retry_count': Number.isInteger(job.retry_count) ? job.retry_count : 0,
      },
    },
    parent,
  );
  return inSpan(api, span, api.trace.setSpan(parent, span), perform);
}

/** Runs `fn` in `context` (which holds `span`): a throw marks the span an error; the span ends either way. */
export async function inSpan<T>(api: Otel, span: Span, context: Context, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await api.context.with(context, fn);
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}
