// Events: the live stream as it comes, newest first, filtered by kind.
import { h } from '../dom.js';
import { onEvent } from '../stream.js';
import { stringifyJson } from '../api.js';

const MAX = 500;

export default function events(el) {
  const kinds = new Set();
  const filter = h('select', { id: 'ev-kind', 'data-test': 'event-kind' }, h('option', { value: '' }, 'every kind'));
  const text = h('input', { type: 'search', placeholder: 'filter', 'aria-label': 'filter the events',
    'data-test': 'event-filter' });
  const list = h('ol', { class: 'events', 'data-test': 'event-list' });
  const count = h('span', { class: 'count', 'data-test': 'event-count' }, '0');
  el.append(h('h1', {}, 'Events'),
    h('div', { class: 'table-tools' }, h('label', { for: 'ev-kind' }, 'Kind'), filter, text, count),
    h('p', { class: 'note' }, `The stream as it comes, newest first (the last ${MAX}).`), list);

  function shown(li) {
    const k = filter.value, q = text.value.trim().toLowerCase();
    return (!k || li.dataset.kind === k || li.dataset.kind.startsWith(`${k}.`)) &&
      (!q || li.textContent.toLowerCase().includes(q));
  }
  function apply() {
    let n = 0;
    for (const li of list.children) { li.hidden = !shown(li); if (!li.hidden) n++; }
    count.textContent = String(n);
  }
  filter.addEventListener('change', apply);
  text.addEventListener('input', apply);

  const off = onEvent((kind, ev) => {
    if (kind === 'stream.open') return;
    for (const k of [kind.split('.')[0], kind]) {
      if (!kinds.has(k)) {
        kinds.add(k);
        filter.append(h('option', { value: k }, k));
      }
    }
    const li = h('li', { 'data-test': 'event-row', 'data-kind': kind },
      h('time', {}, new Date().toLocaleTimeString()), ' ', h('b', {}, kind), ' ',
      h('span', { class: 'mono' }, stringifyJson(ev)));
    li.hidden = !shown(li);
    list.prepend(li);
    while (list.children.length > MAX) list.lastChild.remove();
    apply();
  });
  return () => off();
}
