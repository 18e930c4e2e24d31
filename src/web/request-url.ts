// Which path and query a request names, read without trusting it. `new URL(req.url, base)` would
// read `//` (or `//host/x`) as a URL of another host, and throws on `//` alone; a request target is
// a path (origin form, `/a/b?c`), or a whole http(s) URL (absolute form, which HTTP lets any client
// send). Anything else (`*`, `host:443`, no target at all) names nothing here.
import { ApiError } from './api-params';

/** The request target's path (as sent: `//` stays `//`) and query; throws a 400 ApiError otherwise. */
export function requestUrl(target: string | undefined): URL {
  let url: URL | undefined;
  try {
    if (target?.startsWith('/')) url = new URL(`http://dashboard${target}`);
    else if (target !== undefined && /^https?:\/\//i.test(target)) url = new URL(target);
  } catch {
    url = undefined;
  }
  if (!url) throw new ApiError(400, 'the request target must be a path');
  return url;
}
