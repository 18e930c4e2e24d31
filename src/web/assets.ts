// The dashboard page's static files (./assets), read once: every script and stylesheet is served by
// the dashboard itself, none from a CDN. The page names them by relative URLs, so they resolve under
// whatever path the dashboard is mounted at.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
const ASSETS_DIR = path.join(__dirname, 'assets');

export interface Asset {
  type: string;
  body: Buffer;
}

let loaded: Map<string, Asset> | undefined;

/** Path below the mount point (`/app.js`, `/` for the page) -> asset. */
export function dashboardAssets(): Map<string, Asset> {
  if (loaded) return loaded;
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(ASSETS_DIR)) {
    const type = CONTENT_TYPES[path.extname(name)];
    if (type) assets.set(`/${name}`, { type, body: readFileSync(path.join(ASSETS_DIR, name)) });
  }
  const index = assets.get('/index.html');
  if (index) assets.set('/', index);
  return (loaded = assets);
}
