// Every relative link of README.md and docs/*.md leads somewhere: the file or folder exists, and
// a `#fragment` into a Markdown file names one of its headings (as GitHub turns them into ids).
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../support/paths';

/** README.md and docs/*.md, relative to the repository root. */
function documents(): string[] {
  const docs = readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md'));
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

/** The text outside fenced code blocks. */
function outsideFences(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
}

/** The text outside fenced code blocks and inline code, where a `[text](target)` is a link. */
function prose(markdown: string): string {
  return outsideFences(markdown).replace(/`[^`\n]*`/g, '');
}

/** The link targets of a document: `[text](target)`, without a title. */
export function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
}

/** The ids GitHub gives a document's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
export function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of outsideFences(markdown)
    .replace(/`([^`\n]*)`/g, '$1')
    .matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** What is wrong with one link of `doc`, or undefined when it resolves. */
function brokenLink(doc: string, target: string): string | undefined {
  if (/^[a-z][a-z+.-]*:/i.test(target)) return undefined; // https:, mailto: ...
  const hash = target.indexOf('#');
  const file = hash < 0 ? target : target.slice(0, hash);
  const fragment = hash < 0 ? undefined : target.slice(hash + 1);
  const resolved = file === '' ? path.join(repoRoot, doc) : path.resolve(path.dirname(path.join(repoRoot, doc)), file);
  if (!existsSync(resolved)) return `${doc}: ${target} does not exist`;
  if (fragment === undefined) return undefined;
  if (!statSync(resolved).isFile() || !resolved.endsWith('.md'))
    return `${doc}: ${target} has a fragment but is no Markdown file`;
  const ids = headingIds(readFileSync(resolved, 'utf8'));
  return ids.has(fragment)
    ? undefined
    : `${doc}: ${target}: no heading with the id ${fragment} (has ${[...ids].join(', ')})`;
}

describe('links in README.md and docs/', () => {
  it('reads the links and heading ids as GitHub does', () => {
    expect(linkTargets('see [a](b.md#c) and `[x](y)`, [Exq]\n```\n[z](w)\n```\n')).to.deep.equal(['b.md#c']);
    const ids = headingIds('# A title\n## Failover: `waitReplicas`, and more\n## A title\n```\n# not one\n```\n');
    expect([...ids]).to.deep.equal(['a-title', 'failover-waitreplicas-and-more', 'a-title-1']);
  });

  for (const doc of documents()) {
    it(`${doc}: every relative link resolves`, () => {
      const targets = linkTargets(readFileSync(path.join(repoRoot, doc), 'utf8'));
      if (doc === 'README.md') expect(targets.length, 'the README links to docs/').to.be.above(5);
      const broken = targets.map((target) => brokenLink(doc, target)).filter((e) => e !== undefined);
      expect(broken).to.deep.equal([]);
    });
  }
});
