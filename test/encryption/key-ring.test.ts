// The envelope of encrypted args: it opens with its key only, for its own job only, unaltered; a
// ring of several keys opens what any of them sealed and seals with the first; no key's text
// reaches an error, an inspection or a JSON dump of the ring.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { envelopeOf, KeyRing, keyIdOf, openedPayload, readableArgs } from '../../src/job/encryption';
import { encodeNewJob } from '../../src/job/job';
import { resolveConfig } from '../../config/validate';

const newKey = () => randomBytes(32).toString('base64');
const ringOf = (...keys: string[]) => KeyRing.parse(keys.join(',')) as KeyRing;
const ARGS = '["card 4242-4242",{"amount":12}]';

/** A job of `className`/`jid` whose args `ring` sealed. */
function sealedJob(ring: KeyRing, className = 'Charge', jid = 'j1') {
  const { json } = encodeNewJob('default', className, JSON.parse(ARGS) as unknown[], { jid }, { seal: ring });
  return { raw: json, job: JSON.parse(json) as { args: unknown[]; class: string; jid: string } };
}

describe('encrypted args: the envelope', () => {
  it('stores one labelled envelope in args, the other fields readable, and opens to the args', () => {
    const ring = ringOf(newKey());
    const { raw, job } = sealedJob(ring);
    expect(raw).not.to.contain('4242');
    expect(job).to.include({ class: 'Charge', jid: 'j1', queue: 'default' });
    const envelope = envelopeOf(job.args);
    expect(envelope).to.include({ 'nexq-encrypted': 1, kid: ring.currentKid });
    expect(Buffer.from(String(envelope?.iv), 'base64')).to.have.length(12);
    const opened = openedPayload(raw, job, ring);
    expect(JSON.parse(opened)).to.deep.equal({ ...JSON.parse(raw), args: JSON.parse(ARGS) });
  });

  it('draws a fresh IV per job: the same args seal to different envelopes', () => {
    const ring = ringOf(newKey());
    expect(sealedJob(ring, 'Charge', 'a').job.args).not.to.deep.equal(sealedJob(ring, 'Charge', 'a').job.args);
  });

  it('does not open when copied into another job (another jid or class)', () => {
    const ring = ringOf(newKey());
    const { job } = sealedJob(ring);
    expect(() => openedPayload('{}', { ...job, jid: 'j2' }, ring)).to.throw(/does not authenticate/);
    expect(() => openedPayload('{}', { ...job, class: 'Refund' }, ring)).to.throw(/does not authenticate/);
  });

  it('does not open when altered', () => {
    const ring = ringOf(newKey());
    const { job } = sealedJob(ring);
    const envelope = envelopeOf(job.args) as NonNullable<ReturnType<typeof envelopeOf>>;
    const data = Buffer.from(String(envelope.data), 'base64');
    data[0] ^= 1;
    const tampered = { ...job, args: [{ ...envelope, data: data.toString('base64') }] };
    expect(() => openedPayload('{}', tampered, ring)).to.throw(/does not authenticate/);
  });

  it('names an unknown key id, and no key at all, when it cannot open', () => {
    const { job } = sealedJob(ringOf(newKey()));
    expect(() => openedPayload('{}', job, ringOf(newKey()))).to.throw(/no configured key has id/);
    expect(() => openedPayload('{}', job, undefined)).to.throw(/no encryptionKeys/);
  });

  it('rotates: a ring [new, old] opens what old sealed and seals with new', () => {
    const [oldKey, freshKey] = [newKey(), newKey()];
    const old = sealedJob(ringOf(oldKey));
    const rotated = ringOf(freshKey, oldKey);
    expect(JSON.parse(openedPayload(old.raw, old.job, rotated)).args).to.deep.equal(JSON.parse(ARGS));
    expect(envelopeOf(sealedJob(rotated).job.args)?.kid).to.equal(keyIdOf(Buffer.from(freshKey, 'base64')));
  });

  it('shows readers the args opened with the key and "encrypted" without it', () => {
    const ring = ringOf(newKey());
    const { job } = sealedJob(ring);
    expect(readableArgs(job, ring)).to.deep.equal(JSON.parse(ARGS));
    expect(readableArgs(job, undefined)).to.equal('encrypted');
    expect(readableArgs(job, ringOf(newKey()))).to.equal('encrypted');
  });

  it('keeps plain args as they are', () => {
    const raw = '{"class":"A","args":[1],"jid":"x"}';
    expect(openedPayload(raw, { class: 'A', args: [1], jid: 'x' }, undefined)).to.equal(raw);
  });

  it('never shows a key: not in the ring inspected or as JSON, not in a config error', () => {
    const key = newKey();
    const ring = ringOf(key);
    expect(inspect(ring)).not.to.contain(key);
    expect(JSON.stringify({ ring })).not.to.contain(key);
    const short = key.slice(0, 20);
    let message = '';
    try {
      resolveConfig({ encryptionKeys: `${key},${short}` });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).to.match(/encryptionKeys.*key 2 is not/);
    expect(message).not.to.contain(short);
    expect(message).not.to.contain(key);
  });
});
