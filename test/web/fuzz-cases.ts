// The requests the dashboard's fuzz test sends, made from the route table itself (API_ROUTES of
// src/web/api.ts, the page's assets, /metrics), so a route added later is fuzzed without anyone
// listing it here: every route with odd path parameters, every method, odd queries and, for
// actions, odd bodies; then odd targets, headers and framing; then seeded random mutations of each
// route's good request. Targets are written as sent on the wire (raw bytes, bad escapes and all).
import { API_ROUTES } from '../../src/web/api';
import type { Route } from '../../src/web/api-params';
import { dashboardAssets } from '../../src/web/assets';
import type { RawRequest } from '../support/raw-http';

export interface FuzzCase {
  what: string;
  request: RawRequest;
  /** Framing so broken that the server may close without a word (it must still not fail). */
  mayDrop?: boolean;
  /** Close our side after sending: the server sees the body end early. */
  halfClose?: boolean;
}

/** A route's path as a template, `:p` for each parameter; throws for syntax it cannot read. */
export function template(route: Route): string {
  const path = route.path.source
    .replace(/^\^/, '')
    .replace(/\$$/, '')
    .replaceAll('([^/]+)', ':p')
    .replaceAll('\\/', '/');
  const filled = path.replaceAll(':p', 'x');
  if (!/^[\w/:-]*$/.test(path) || !route.path.test(filled))
    throw new Error(`route ${route.path.source}: the fuzz test cannot make paths for it; teach template() its syntax`);
  return path;
}

const fill = (path: string, value: string) => path.replaceAll(':p', value);

/** Path parameters as they appear in the target. */
const PARAMS = [
  '',
  'default',
  'no-such',
  'x'.repeat(3000),
  '%',
  '%zz',
  '%00',
  '%2F',
  '%2e%2e',
  '..',
  '.',
  '%C3%28',
  '%F0%9F%92%A9',
  '\xe9\xff',
  '{x}',
  '%7Bx%7D',
  '}',
  '*',
  '__proto__',
  'constructor',
  'dead',
  'retry',
  'schedule',
  '-1',
  '0',
  'null',
  '%20',
  '+',
  'a:b',
  '\'"<>',
  '\\',
  '%5C',
  'default%00',
  'a;b=c',
];

const QUERIES = [
  'limit=0',
  'limit=-1',
  'limit=1e3',
  'limit=1001',
  'limit=99999999999999999999999',
  'limit=',
  'limit=%',
  'limit=1&limit=0',
  'days=0',
  'days=366',
  'days=1.5',
  'minutes=0',
  'minutes=99999',
  'cursor=x',
  'cursor=1:1',
  'cursor=-1e400:0',
  'cursor=NaN:1',
  'cursor=Infinity:0',
  'cursor=1e308:99999999999999999999',
  'cursor=%00',
  `cursor=${'9'.repeat(5000)}`,
  `class=${'x'.repeat(201)}`,
  'class=%',
  'text=%25',
  'text=%00',
  'jid=*',
  'jid=%7B',
  '%=%',
  '&&&',
  '=',
  '?',
  '#frag',
  'limit=1&cursor=' + encodeURIComponent('1:1:1'),
  'offset=-1',
  'offset=1e3',
  'offset=99999999999999999999',
  'offset=%00',
];

const METHODS = ['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'PROPFIND', 'FOO', 'get'];

const BODIES: Array<string | Buffer> = [
  '',
  ' ',
  'null',
  'true',
  '1',
  '"x"',
  '[]',
  '{}',
  '{',
  '\u00ef\u00bb\u00bf{}',
  '{"jids":[]}',
  '{"jids":"x"}',
  '{"jids":[1]}',
  '{"jids":[""]}',
  '{"jids":["nope"]}',
  '{"jids":[null,{}]}',
  JSON.stringify({ jids: Array.from({ length: 1001 }, (_, i) => `j${i}`) }),
  '{"all":"yes"}',
  '{"all":true}',
  '{"mode":"x"}',
  '{"mode":["in"]}',
  '{"mode":"in"}',
  '{"group":""}',
  '{"group":".."}',
  '{"group":"a/../b"}',
  '{"group":"\\ud800"}',
  '{"group":"\\u0000"}',
  '{"group":"\u00fc\ud83d\ude00"}',
  '{"group":["a"]}',
  `{"group":"${'x'.repeat(201)}"}`,
  '{"__proto__":{"all":true}}',
  '{"constructor":{"prototype":{"all":true}}}',
  `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
  Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22, 0xc3, 0x28]),
  'x'.repeat(1024 * 1024 + 10),
];

const ACTION = { 'X-Nexq': '1', 'Content-Type': 'application/json' };

/** Targets that are odd before any route is reached. */
const TARGETS = [
  '/',
  '//',
  '///',
  '//api/stats',
  '/api',
  '/api/',
  '/api//stats',
  '/%',
  '/%zz',
  '/%00',
  '/..',
  '/../../etc/passwd',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/app.js/',
  '/app.js%00',
  '/index.html?',
  `/${'a'.repeat(8000)}`,
  `/api/jobs/${'%41'.repeat(3000)}`,
  'http://127.0.0.1/api/stats',
  'http://evil.example//',
  'HTTP://x',
  '*',
  'x',
  '',
  '?',
  '/?%',
  '/\xe9',
  '/api/stats\xff',
  '/api/stats#',
  '/\\evil',
  '/@evil',
  '/api/queues/default/pause/',
];

/** Header oddities, each sent on a read, an action and the page. */
const HEADERS: Array<Record<string, string>> = [
  { Host: '' },
  { Host: '[' },
  { Host: 'evil.example' },
  { Host: '127.0.0.1:99999' },
  { Host: '[::1' },
  { Origin: 'null' },
  { Origin: 'http://[' },
  { Origin: 'file://' },
  { Origin: 'http://evil.example' },
  { Origin: '\xff' },
  { 'X-Nexq': '0' },
  { 'X-Nexq': '1, 1' },
  { 'X-Nexq': '' },
  { Authorization: 'Basic' },
  { Authorization: 'Basic !!!' },
  { Authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` },
  { Authorization: `Basic ${'A'.repeat(8000)}` },
  { 'Content-Type': 'application/json; charset=latin1' },
  { 'Content-Type': 'multipart/form-data; boundary=x' },
  { 'Content-Encoding': 'gzip' },
  { 'Content-Length': 'abc' },
  { 'Content-Length': '-1' },
  { 'Transfer-Encoding': 'chunked' },
  { 'Transfer-Encoding': 'gzip, chunked' },
  { Expect: '100-continue' },
  { 'X-Forwarded-Host': 'evil.example' },
  { Cookie: '\xff\xfe' },
  { 'X-Long': 'v'.repeat(20_000) },
];

/** A seeded generator, so a failure names a case that comes back on the next run. */
function seeded(seed: number): (n: number) => number {
  let s = seed;
  return (n) => ((s = (s * 1103515245 + 12345) % 2 ** 31), s % n);
}

function mutate(text: string, rand: (n: number) => number): string {
  const chars = text.split('');
  for (let k = 0; k < 1 + rand(3); k++) {
    const byte = 0x21 + rand(0xff - 0x21); // no spaces or controls: the request line stays one line
    chars.splice(1 + rand(Math.max(chars.length - 1, 1)), rand(3), String.fromCharCode(byte));
  }
  return chars.join('');
}

/**
 * Every case, for a dashboard whose page is at `prefix` (`''` at the root); `jids` (of jobs the
 * test wrote) are path parameters and bodies too, so the routes reach real entries.
 */
export function fuzzCases(prefix: string, mutations = 300, jids: string[] = []): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const add = (what: string, request: RawRequest, extra: Partial<FuzzCase> = {}) =>
    cases.push({ what, request, ...extra });
  const routes = API_ROUTES.map((route) => ({ route, path: `${prefix}/api${template(route)}` }));
  const good = (route: Route, target: string): RawRequest =>
    route.method === 'POST'
      ? { method: 'POST', target, headers: ACTION, body: '{"jids":["nope"]}' }
      : { method: 'GET', target };

  for (const { route, path } of routes) {
    for (const jid of jids) {
      add(`${route.method} ${path} with a real jid`, good(route, fill(path, jid)));
      if (route.method === 'POST')
        add(`POST ${path} on a real jid`, {
          ...good(route, fill(path, 'default')),
          body: JSON.stringify({ jids: [jid] }),
        });
    }
    for (const value of PARAMS)
      add(`${route.method} ${path} with :p=${value.slice(0, 20)}`, good(route, fill(path, value)));
    for (const method of METHODS)
      add(`${method} ${path}`, {
        method,
        target: fill(path, 'x'),
        headers: ACTION,
        body: method === 'GET' ? undefined : '{}',
      });
    for (const query of QUERIES)
      add(`${route.method} ${path}?${query.slice(0, 30)}`, good(route, `${fill(path, 'default')}?${query}`));
    if (route.method === 'POST')
      for (const [i, body] of BODIES.entries())
        add(`POST ${path} body #${i}`, { method: 'POST', target: fill(path, 'default'), headers: ACTION, body });
  }
  const assets = [...dashboardAssets().keys(), '/metrics'].map((a) => `${prefix}${a}`);
  for (const target of [...assets, ...TARGETS.map((t) => (t.startsWith('/') ? `${prefix}${t}` : t))])
    for (const method of ['GET', 'HEAD', 'POST'])
      add(`${method} ${target.slice(0, 40)}`, { method, target, headers: ACTION });
  const samples = [`${prefix}/api/stats`, `${prefix}/api/sets/dead/delete`, `${prefix}/`];
  for (const headers of HEADERS)
    for (const target of samples) {
      const framing = Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h));
      add(
        `POST ${target} with ${JSON.stringify(headers).slice(0, 60)}`,
        {
          method: target.endsWith('/delete') ? 'POST' : 'GET',
          target,
          headers: { 'X-Nexq': '1', ...headers },
          body: '{"jids":["nope"]}',
        },
        { mayDrop: framing },
      );
    }
  // Bodies that end early: the server sees the connection half-closed mid-body.
  for (const [what, framing, body] of [
    ['a body shorter than its Content-Length', { 'Content-Length': '100' }, '{"jids"'],
    ['a body cut off mid-chunk', { 'Transfer-Encoding': 'chunked' }, '40\r\n{"jids":'],
  ] as const)
    add(
      what,
      { method: 'POST', target: `${prefix}/api/sets/dead/delete`, headers: { ...ACTION, ...framing }, body },
      { mayDrop: true, halfClose: true },
    );
  const rand = seeded(31);
  for (let i = 0; i < mutations; i++) {
    const { route, path } = routes[rand(routes.length)];
    const request = good(route, `${fill(path, 'default')}?limit=1`);
    const which = rand(3);
    if (which === 0) request.target = mutate(request.target, rand);
    else if (which === 1 && request.body !== undefined) request.body = mutate(String(request.body), rand);
    else request.target = `${request.target}&${mutate('cursor=1:0&class=x', rand)}`;
    add(`mutation #${i} of ${route.method} ${path}: ${JSON.stringify(request.target).slice(0, 60)}`, request);
  }
  return cases;
}
