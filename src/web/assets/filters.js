// The filter form and the cursor pager of the queue and set pages. The filter and the cursor live
// in the page's hash (#/dead?class=X&text=y&cursor=...), so a page can be reloaded and linked.
import { el, button } from './dom.js';

const FIELDS = [
  ['class', 'class'],
  ['text', 'text in args or error'],
  ['jid', 'jid'],
];

/** The API query for `query` (the hash's): the filter and the cursor, with `limit`. */
export function listQuery(query, limit) {
  const out = new URLSearchParams({ limit: String(limit) });
  for (const name of ['class', 'text', 'jid', 'cursor']) if (query.get(name)) out.set(name, query.get(name));
  return out.toString();
}

/** A form whose submit shows the first page of `base` with the filter typed in. */
export function filterForm(base, query) {
  const inputs = FIELDS.map(([name, label]) =>
    el('input', { name, placeholder: label, 'aria-label': `Filter by ${label}`, value: query.get(name) ?? '' }),
  );
  const submit = (event) => {
    event.preventDefault();
    const out = new URLSearchParams();
    for (const input of inputs) if (input.value.trim()) out.set(input.name, input.value.trim());
    location.hash = `${base}${out.size ? `?${out}` : ''}`;
  };
  const clear = button('Clear filter', () => (location.hash = base), { class: 'clear-filter' });
  return el('form', { class: 'filter', onsubmit: submit }, inputs, el('button', { type: 'submit' }, 'Filter'), clear);
}

/** "first page" and "next ›" links that keep the filter; `next` is the API's cursor (null at the end). */
export function cursorPager(base, query, next) {
  const keep = new URLSearchParams();
  for (const name of ['class', 'text', 'jid']) if (query.get(name)) keep.set(name, query.get(name));
  const link = (cursor) => {
    const q = new URLSearchParams(keep);
    if (cursor) q.set('cursor', cursor);
    return `${base}${q.size ? `?${q}` : ''}`;
  };
  return el(
    'p',
    { class: 'pager' },
    query.get('cursor') ? el('a', { href: link(null), class: 'first' }, '« first page') : '',
    ' ',
    next ? el('a', { href: link(next), class: 'next' }, 'next ›') : el('span', { class: 'end' }, 'end of the list'),
  );
}
