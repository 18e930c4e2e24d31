// nexq's own version, from its package.json (found from this file up, so it holds in the source
// tree, in dist/ and in an installed package alike).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

function readVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'nexq' && typeof pkg.version === 'string') return pkg.version;
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}

export const NEXQ_VERSION = readVersion();
