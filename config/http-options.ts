// The options of the node's two HTTP listeners: `metrics` (Prometheus) and `web` (the dashboard),
// each a port, a host and, for the dashboard, basic auth credentials.
import { ConfigError } from './config-error';
import type { WebOptions } from './defaults';

/** `metrics`: a boolean, or `{ port, host? }` with a TCP port and a host name or address. */
export function checkMetrics(metrics: unknown): void {
  if (typeof metrics === 'boolean') return;
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics))
    throw new ConfigError('metrics', 'true, false or { port, host? }', metrics);
  for (const field of Object.keys(metrics)) {
    if (field !== 'port' && field !== 'host') throw new ConfigError(`metrics.${field}`, 'one of port, host', field);
  }
  const { port, host } = metrics as { port?: unknown; host?: unknown };
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError('metrics.port', 'an integer from 0 to 65535', port);
  if (host !== undefined && (typeof host !== 'string' || !/^[^\s/]{1,253}$/.test(host)))
    throw new ConfigError('metrics.host', 'a host name or IP address', host);
}

const WEB_KEYS = ['port', 'host', 'username', 'password'];
export const DEFAULT_WEB_HOST = '127.0.0.1';

/** `web`: a port, an optional host (127.0.0.1 by default), basic auth credentials both or neither. */
export function resolveWeb(web: unknown): WebOptions | undefined {
  if (web === undefined) return undefined;
  if (typeof web !== 'object' || web === null || Array.isArray(web))
    throw new ConfigError('web', 'an object { port, host?, username?, password? }', web);
  for (const field of Object.keys(web)) {
    if (!WEB_KEYS.includes(field)) throw new ConfigError(`web.${field}`, `one of ${WEB_KEYS.join(', ')}`, field);
  }
  const { port, host = DEFAULT_WEB_HOST, username, password } = web as WebOptions;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError('web.port', 'an integer from 0 to 65535', port);
  if (typeof host !== 'string' || host === '')
    throw new ConfigError('web.host', 'an address to bind, e.g. 127.0.0.1', host);
  if (username !== undefined && (typeof username !== 'string' || username === '' || username.includes(':'))) {
    throw new ConfigError('web.username', 'a non-empty string without ":"', username);
  }
  if (password !== undefined && (typeof password !== 'string' || password === ''))
    throw new ConfigError('web.password', 'a non-empty string', '<hidden>');
  if ((username === undefined) !== (password === undefined)) {
    throw new ConfigError(
      username === undefined ? 'web.username' : 'web.password',
      'given together with the other (basic auth needs both)',
      '<missing>',
    );
  }
  return { port, host, ...(username !== undefined ? { username, password } : {}) };
}
