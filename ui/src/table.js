// A table with a case-insensitive filter and columns sorted by a click (or
// Enter on the header): table({columns, rowTest, rowKey, filterTest}),
// then .set(rows) whenever the data changes; sort and filter stay.
//   columns: [{key, label, value(row) for sort and filter, render(row)?}]
// At most `limit` rows are in the page at once (10,000 rows of a table
// would take the browser seconds to lay out); "show more" adds as many.
import { h, clear } from './dom.js';

export function table({ columns, rowTest, rowKey, filterTest, empty = 'nothing yet', onRow, limit = 500 }) {
  let rows = [];
  let shownMax = limit;
  let sortKey = columns[0].key;
  let sortDir = 1;
  const filter = h('input', {
    type: 'search', placeholder: 'filter', 'aria-label': 'filter the rows',
    'data-test': filterTest || 'filter', oninput: () => draw(),
  });
  const head = h('tr', {});
  const body = h('tbody', {});
  const count = h('span', { class: 'count', 'data-test': `${rowTest}-count` });
  const more = h('button', { class: 'more', 'data-test': `${rowTest}-more`, hidden: true,
    onclick: () => { shownMax += limit; draw(); } }, 'show more');
  const el = h('div', { class: 'table' },
    h('div', { class: 'table-tools' }, filter, count),
    h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, head), body)), more);

  for (const c of columns) {
    const th = h('th', {
      tabindex: 0, scope: 'col', 'data-test': `sort-${c.key}`,
      onclick: () => sortBy(c.key),
      onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(c.key); } },
    }, c.label);
    head.append(th);
  }

  function sortBy(key) {
    sortDir = key === sortKey ? -sortDir : 1;
    sortKey = key;
    draw();
  }

  function cellText(c, r) {
    const v = c.value(r);
    return v === null || v === undefined ? '' : String(v);
  }

  function draw() {
    const q = filter.value.trim().toLowerCase();
    const col = columns.find((c) => c.key === sortKey);
    let shown = q ? rows.filter((r) => columns.some((c) => cellText(c, r).toLowerCase().includes(q))) : rows.slice();
    shown.sort((a, b) => {
      const x = col.value(a), y = col.value(b);
      if (x === y) return 0;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))) * sortDir;
    });
    for (const th of head.children) {
      const k = th.getAttribute('data-test').slice(5);
      th.setAttribute('aria-sort', k === sortKey ? (sortDir > 0 ? 'ascending' : 'descending') : 'none');
    }
    clear(body);
    if (!shown.length) body.append(h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, empty)));
    for (const r of shown.slice(0, shownMax)) {
      const tr = h('tr', { 'data-test': rowTest, 'data-key': rowKey ? rowKey(r) : null },
        columns.map((c) => h('td', { 'data-test': `cell-${c.key}` }, c.render ? c.render(r) : cellText(c, r))));
      if (onRow) onRow(tr, r);
      body.append(tr);
    }
    count.textContent = (q ? `${shown.length} of ${rows.length}` : `${rows.length}`) +
      (shown.length > shownMax ? `, the first ${shownMax} shown` : '');
    more.hidden = shown.length <= shownMax;
  }

  return {
    el,
    set(r) { rows = r; draw(); },
  };
}
