// Which browser requests the dashboard answers, besides auth and the X-Nexq header:
//  - bound to a loopback address (the default), only requests whose Host names a loopback address,
//    so a page on another site that re-points its own name at 127.0.0.1 (DNS rebinding) is refused;
//  - actions whose Origin header, when a browser sends one, is this server itself.
import type { IncomingMessage } from 'node:http';

function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  try {
    return new URL(`http://${hostHeader}`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return undefined;
  }
}

export function isLoopback(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** False when the server is bound to loopback and the request's Host names something else. */
export function hostAllowed(boundHost: string, req: IncomingMessage): boolean {
  if (!isLoopback(boundHost)) return true;
  const name = hostnameOf(req.headers.host);
  return name !== undefined && isLoopback(name);
}

/** False when the request carries an Origin other than the host it was sent to. */
export function originAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}
