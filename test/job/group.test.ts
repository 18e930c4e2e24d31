import { expect } from 'chai';
import { encodeNewJob, InvalidJobError, MAX_GROUP_LENGTH } from '../../src/job/job';
import { prepareJobs } from '../../src/job/new-jobs';
import { defineJob } from '../../src/define-job';

describe("a job's group", () => {
  it('is written as a top-level "group" field', () => {
    const { json } = encodeNewJob('default', 'Mail', [1], { group: 'tenant-42' });
    expect(JSON.parse(json).group).to.equal('tenant-42');
  });

  it("is absent without the option (the default group), so the JSON stays Sidekiq's", () => {
    expect(JSON.parse(encodeNewJob('default', 'Mail', [1]).json)).to.not.have.property('group');
  });

  it('refuses an empty, too long, non-string, control-character or ill-formed name with a clear error', () => {
    const cutEmoji = 'tenant-🎉'.slice(0, -1); // a lone surrogate, as a slice inside an emoji leaves
    const bad: unknown[] = ['', 'x'.repeat(MAX_GROUP_LENGTH + 1), 42, 'a\u0000b', 'tab\there', cutEmoji, '\uDC00x'];
    for (const group of bad) {
      expect(() => encodeNewJob('default', 'Mail', [], { group } as never), String(group)).to.throw(
        InvalidJobError,
        /group must/,
      );
    }
    expect(() => encodeNewJob('default', 'Mail', [], { group: 'x'.repeat(MAX_GROUP_LENGTH) })).to.not.throw();
    expect(() => encodeNewJob('default', 'Mail', [], { group: 'tenant-🎉' })).to.not.throw();
  });

  it('goes through enqueueAll requests', () => {
    const [job] = prepareJobs([{ queue: 'q', class: 'Mail', args: [], options: { group: 'acme' } }]);
    expect(JSON.parse(job.json).group).to.equal('acme');
  });

  it('is named in the unknown-option message when misspelt', () => {
    expect(() => encodeNewJob('default', 'Mail', [], { grup: 'a' } as never)).to.throw(/did you mean `group`/);
  });

  it('is a default option of a defineJob definition, which an enqueue may override', () => {
    const Mail = defineJob<[string]>('Mail', { queue: 'mail', group: 'acme' });
    expect(Mail.job(['x']).options?.group).to.equal('acme');
    expect(Mail.job(['x'], { group: 'globex' }).options?.group).to.equal('globex');
  });
});
