// nexq's version, from its package.json (two folders up from dist/config/), read once at load.
import fs from 'node:fs';
import path from 'node:path';

function readVersion(): string {
  try {
    const text = fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8');
    const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const NEXQ_VERSION = readVersion();
