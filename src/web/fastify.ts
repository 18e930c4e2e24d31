// The dashboard as a Fastify plugin: `app.register(nexqFastify({ redis, namespace }), { prefix:
// '/jobs' })`. Its routes take every method under the prefix and hand the raw request to the
// dashboard's handler (mount.ts), which reads an action's body itself: the plugin's own scope has a
// content-type parser that leaves the body unread. The app's hooks (its auth) run first, as for
// any route. Typed by shape, so nexq does not depend on Fastify.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DashboardMountOptions, nexqDashboard } from './mount';
import { sendFailure } from './respond';

interface FastifyRequestLike {
  raw: IncomingMessage;
}
interface FastifyReplyLike {
  raw: ServerResponse;
  hijack(): void;
}
/** The part of a Fastify instance the plugin uses. */
export interface FastifyLike {
  readonly prefix: string;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(type: string, parser: (req: unknown, payload: unknown, done: (err: null) => void) => void): void;
  all(path: string, handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<void>): void;
  addHook(name: 'onClose', hook: () => Promise<void>): void;
}

/** A Fastify plugin serving the dashboard under the prefix it is registered with; closed with the app. */
export function nexqFastify(
  options: Omit<DashboardMountOptions, 'mountPath'>,
): (fastify: FastifyLike, opts: unknown, done: (err?: Error) => void) => void {
  return (fastify, _opts, done) => {
    const dashboard = nexqDashboard(options);
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', (_req, _payload, done) => done(null));
    const route = async (request: FastifyRequestLike, reply: FastifyReplyLike) => {
      reply.hijack();
      const answered = await dashboard.serve(request.raw, reply.raw, fastify.prefix).catch((err: unknown) => {
        sendFailure(reply.raw, err, `${request.raw.method ?? '?'} request`, options.logger);
        return true;
      });
      if (!answered) reply.raw.writeHead(404).end();
    };
    fastify.all('/', route);
    fastify.all('/*', route);
    fastify.addHook('onClose', () => dashboard.close());
    done();
  };
}
