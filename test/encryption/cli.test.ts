// `nexq show` and `nexq jobs` print an encrypted job's args opened when NEXQ_ENCRYPTION_KEYS holds
// its key, and "encrypted" otherwise; never the key.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { useNodes } from '../support/node';
import { cliAgainst } from '../support/cli';

describe('encrypted args in the CLI', () => {
  const t = useNodes();
  const { cli } = cliAgainst(() => t);

  it('shows the args opened with the key and "encrypted" without it', async () => {
    const key = randomBytes(32).toString('base64');
    const marker = `cli-${randomBytes(6).toString('hex')}`;
    const producer = await t.start({ mode: 'enqueuer', encryptionKeys: key });
    const jid = await producer.enqueue('default', 'Record', [marker], { encrypt: true });
    const keyless = await cli(['show', jid]);
    expect(keyless.status).to.equal(0);
    expect(keyless.stdout).to.contain('"encrypted"');
    expect(keyless.stdout).not.to.contain(marker);
    const listed = await cli(['jobs', 'default', '--json']);
    expect(listed.stdout).to.contain('"encrypted"');
    const keyed = await cli(['show', jid], { NEXQ_ENCRYPTION_KEYS: key });
    expect(keyed.stdout).to.contain(marker);
    expect(keyed.stdout + keyed.stderr).not.to.contain(key);
  });
});
