// A performMany module's `chunk` export: read with defaults, and refused with the file named (a
// node's start check runs the same loader, so such a module stops the start).
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CHUNK, readChunkSettings } from '../../workers/chunk-settings';
import { loadHandler } from '../../workers/handler-loader';

describe('performMany chunk settings', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-chunk-'));
  const moduleWith = (name: string, body: string) => {
    const file = path.join(dir, `${name}.js`);
    writeFileSync(file, body);
    return file;
  };

  it('takes size and waitMs, each defaulted', () => {
    expect(readChunkSettings(undefined)).to.deep.equal(DEFAULT_CHUNK);
    expect(readChunkSettings({ size: 7 })).to.deep.equal({ size: 7, waitMs: DEFAULT_CHUNK.waitMs });
    expect(readChunkSettings({ size: 1, waitMs: 0 })).to.deep.equal({ size: 1, waitMs: 0 });
  });

  it('refuses sizes and waits out of bounds, unknown fields and non-objects, saying which', () => {
    expect(readChunkSettings({ size: 0 })).to.match(/chunk.size must be an integer from 1 to 1000, not 0/);
    expect(readChunkSettings({ size: 2.5 })).to.match(/chunk.size/);
    expect(readChunkSettings({ waitMs: -1 })).to.match(/chunk.waitMs must be an integer from 0 to 60000, not -1/);
    expect(readChunkSettings({ size: 5, max: 3 })).to.equal('chunk takes only size and waitMs, not max');
    expect(readChunkSettings(10)).to.equal('chunk must be an object { size, waitMs }, not number');
  });

  it('loads a module with only performMany, its chunk read, and no perform of its own', async () => {
    const file = moduleWith('Many', 'exports.chunk = { size: 3 }; exports.performMany = (l) => l.map(() => 1);');
    const handler = await loadHandler(file);
    expect(handler.chunk).to.deep.equal({ size: 3, waitMs: DEFAULT_CHUNK.waitMs });
    expect(handler.performMany).to.be.a('function');
    expect(handler.perform).to.equal(undefined);
  });

  it('refuses a bad chunk, a chunk without performMany and a performMany that is not a function, naming the file', async () => {
    const cases = [
      ['BadChunk', 'exports.chunk = { size: 0 }; exports.performMany = () => [];', /BadChunk.js: chunk.size must be/],
      [
        'LoneChunk',
        'exports.chunk = { size: 2 }; exports.perform = () => 1;',
        /LoneChunk.js: chunk is exported without performMany/,
      ],
      ['NotFn', 'exports.performMany = 3;', /NotFn.js: performMany must be a function/],
    ] as const;
    for (const [name, body, message] of cases) {
      const err = await loadHandler(moduleWith(name, body)).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(Error).with.property('message').that.matches(message);
    }
  });
});
