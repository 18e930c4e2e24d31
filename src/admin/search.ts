// Filtered, cursor-paged listings of a queue and of the schedule, retry and dead sets, for the
// dashboard. Offsets go wrong while a list changes (a job fetched shifts every later page), so:
//  - a set is paged by score: the cursor is `<score>:<ties>`, the last score shown and how many
//    entries of that score were already shown (a sorted set orders ties by member, fixed), so the
//    next page starts right after it however many entries came or went before it;
//  - a queue is paged by jid: the next page starts behind the last job shown (queue-page.lua reads
//    it in one step); when that job was fetched meanwhile, so was every job ahead of it, and the
//    page starts at the next job to run.
// A filter (class, text in args or error, jid) is applied to at most SCAN_MOST entries per page;
// the cursor then points past what was read, so a sparse match takes several pages, each bounded.
import { queuePage } from '../redis/move-scripts';
import type { AdminContext, JobSet } from './context';
import { setKeys } from './context';
import { findInSets } from './find';
import { jobView, JobView } from './job-view';

export interface JobFilter {
  /** The job's class, exactly. */
  class?: string;
  /** Text found (case-insensitively) in the args or in the error class or message. */
  text?: string;
  /** One job. */
  jid?: string;
}

export interface JobPage {
  jobs: JobView[];
  /** The cursor of the next page; null at the end. */
  next: string | null;
  /** Entries read for this page (filters skip some). */
  scanned: number;
}

/** Entries read per page at most, filter or not. */
export const SCAN_MOST = 2000;
/** Jobs of a queue searched for the anchor of a page at most. */
const ANCHOR_SEARCH_MOST = 100_000;

export function matches(view: JobView, filter: JobFilter): boolean {
  if (filter.jid && view.jid !== filter.jid) return false;
  if (filter.class && view.class !== filter.class) return false;
  if (filter.text) {
    const needle = filter.text.toLowerCase();
    const haystack = [JSON.stringify(view.args ?? view.raw ?? null), view.error_class ?? '', view.error_message ?? ''];
    if (!haystack.some((text) => text.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/** `<score>:<ties>` read back; undefined for the first page. */
export function parseSetCursor(text: string | undefined): { score: number; ties: number } | undefined {
  if (!text) return undefined;
  const match = /^(-?[\d.e+-]+):(\d+)$/.exec(text);
  if (!match || !Number.isFinite(Number(match[1])))
    throw new TypeError(`cursor ${JSON.stringify(text)} is not <score>:<ties>`);
  return { score: Number(match[1]), ties: Number(match[2]) };
}

type Entry = { raw: string; score: number };

/**
 * Up to SCAN_MOST entries of each key from `score` on, merged by score, and the score below which
 * the merge is complete.
 */
async function readFrom(
  ctx: AdminContext,
  keys: string[],
  score: number,
): Promise<{ entries: Entry[]; bound: number }> {
  const entries: Entry[] = [];
  let bound = Infinity;
  for (const key of keys) {
    const flat = await ctx.redis.zrangebyscore(key, score, '+inf', 'WITHSCORES', 'LIMIT', 0, SCAN_MOST);
    for (let i = 0; i < flat.length; i += 2) entries.push({ raw: flat[i], score: Number(flat[i + 1]) });
    // A key read in part: entries of other keys past its last score may come after its unread ones.
    if (flat.length / 2 === SCAN_MOST) bound = Math.min(bound, Number(flat[flat.length - 1]));
  }
  entries.sort((a, b) => a.score - b.score); // stable: ties keep key order, then member order
  return { entries, bound };
}

/** One page of `set`'s entries that match `filter`, earliest score first, after `cursor`. */
export async function searchSet(
  ctx: AdminContext,
  set: JobSet,
  filter: JobFilter,
  limit: number,
  cursor?: string,
): Promise<JobPage> {
  if (filter.jid) {
    const found = (await findInSets(ctx, filter.jid, [set])).map((f) => jobView(f.raw, f.score, ctx.encryption?.ring));
    return { jobs: found.filter((view) => matches(view, filter)), next: null, scanned: found.length };
  }
  const after = parseSetCursor(cursor) ?? { score: -Infinity, ties: 0 };
  const keys = (await setKeys(ctx, set)).map((k) => k.key);
  const { entries, bound } = await readFrom(ctx, keys, after.score);
  const skip = entries.findIndex((e, i) => e.score !== after.score || i >= after.ties);
  let candidates = skip < 0 ? [] : entries.slice(skip);
  const complete = candidates.filter((e) => e.score < bound);
  // Only when more than SCAN_MOST entries share one score is the bound no help: take them as read.
  if (bound !== Infinity && complete.length > 0) candidates = complete;
  const jobs: JobView[] = [];
  let scanned = 0;
  let last: Entry | undefined;
  let ties = after.ties;
  for (const entry of candidates) {
    if (jobs.length === limit) break;
    ties = last === undefined ? (entry.score === after.score ? after.ties : 0) : entry.score === last.score ? ties : 0;
    ties++;
    last = entry;
    scanned++;
    const view = jobView(entry.raw, entry.score, ctx.encryption?.ring);
    if (matches(view, filter)) jobs.push(view);
  }
  const exhausted = bound === Infinity && scanned === candidates.length;
  return { jobs, next: exhausted || !last ? null : `${last.score}:${ties}`, scanned };
}

/** One page of the jobs waiting in `queue` that match `filter`, next to run first, behind the job `cursor`. */
export async function searchQueue(
  ctx: AdminContext,
  queue: string,
  filter: JobFilter,
  limit: number,
  cursor?: string,
): Promise<JobPage & { cursorGone: boolean }> {
  const window = filter.class || filter.text || filter.jid ? SCAN_MOST : limit;
  const { anchorFound, raws } = await queuePage(ctx.redis, ctx.keys, queue, cursor ?? '', window, ANCHOR_SEARCH_MOST);
  const jobs: JobView[] = [];
  let scanned = 0;
  let lastJid: string | null = null;
  for (const raw of raws) {
    if (jobs.length === limit) break;
    scanned++;
    const view = jobView(raw, undefined, ctx.encryption?.ring);
    lastJid = view.jid;
    if (matches(view, filter)) jobs.push(view);
  }
  const more = scanned < raws.length || raws.length === window;
  return { jobs, next: more && lastJid ? lastJid : null, scanned, cursorGone: !anchorFound };
}
