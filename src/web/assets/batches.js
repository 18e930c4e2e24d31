// The dashboard's batch pages: the newest batches with their counts, and one batch with its state
// and the jids of its failed members (each a link to the job's page, which shows where it is).
import { el, getJson, table, jobLink, number, relative } from './dom.js';

const LIST_SIZE = 100;

function batchLink(bid) {
  return el('a', { href: `#/batches/${encodeURIComponent(bid)}`, class: 'bid' }, bid);
}

/** Where a batch stands: open while a producer adds jobs, then pending, complete, succeeded. */
function stateText(b) {
  if (b.successAt) return el('span', { class: 'badge active' }, 'succeeded');
  if (b.completeAt) return el('span', { class: 'badge paused' }, 'complete');
  return el('span', { class: 'badge' }, b.open ? 'adding jobs' : 'running');
}

export async function batchesPage() {
  const batches = await getJson(`/batches?limit=${LIST_SIZE}`);
  return el(
    'div',
    {},
    el('h2', {}, 'Batches ', el('small', {}, `newest first, at most ${LIST_SIZE}`)),
    table(
      ['Batch', 'Description', 'Created', 'Total', 'Pending', 'Failed', 'Dead', 'State'],
      batches.map((b) => ({
        attrs: { 'data-bid': b.bid },
        cells: [
          batchLink(b.bid),
          b.description,
          relative(b.createdAt),
          number(b.total),
          number(b.pending),
          number(b.failed),
          number(b.dead),
          stateText(b),
        ],
      })),
      'No batches.',
    ),
  );
}

export async function batchPage([bid]) {
  const b = await getJson(`/batches/${encodeURIComponent(bid)}`);
  const fact = (name, value) => [el('dt', {}, name), el('dd', {}, value)];
  // A failed member is a job's jid, or `batch:<bid>` for a child batch that failed.
  const member = (m) => (m.startsWith('batch:') ? batchLink(m.slice('batch:'.length)) : jobLink(m));
  return el(
    'div',
    {},
    el('h2', {}, `Batch ${b.bid}`),
    el(
      'dl',
      { class: 'batch-facts' },
      fact('Description', b.description || '–'),
      fact('Parent', b.parent ? batchLink(b.parent) : '–'),
      fact('Created', relative(b.createdAt)),
      fact('Jobs', `${number(b.total)} (and ${number(b.children)} child batches)`),
      fact('Pending', number(b.pending)),
      fact('Failed', number(b.failed)),
      fact('Dead', number(b.dead)),
      fact('State', stateText(b)),
      fact('Completed', relative(b.completeAt)),
      fact('Succeeded', relative(b.successAt)),
      fact('First death', relative(b.deathAt)),
    ),
    el('h3', {}, 'Failures'),
    table(
      ['Member'],
      b.failures.map((m) => ({ attrs: { 'data-member': m }, cells: [member(m)] })),
      'No failures.',
    ),
  );
}
