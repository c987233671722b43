// Flows: the stored flows found by switch, cookie range and state
// (stored_flows); a form that adds a flow and shows the API's 400 next to
// the field it names; delete after a confirmation.
import { h, clear, dpidText, confirmDialog } from '../dom.js';
import { api, Big, big, parseJson, stringifyJson } from '../api.js';
import { onEvent } from '../stream.js';
import { table } from '../table.js';

const FM = '/api/kytos/flow_manager/v2';
const ALL_COOKIES = new Big('18446744073709551615');

// Which form field an API error names: its description quotes the path
// ('flows[0].match.in_port', 'priority', ...).
function fieldOf(description) {
  const m = /'([^']+)'/.exec(description || '');
  const path = m ? m[1].replace(/^flows\[\d*\]\.?/, '') : '';
  for (const f of ['match', 'actions', 'instructions', 'priority', 'table_id', 'cookie']) {
    if (path === f || path.startsWith(`${f}.`) || path.startsWith(`${f}[`)) return f === 'instructions' ? 'actions' : f;
  }
  return 'switch';
}

export default function flows(el) {
  const err = h('p', { class: 'error', role: 'alert', 'data-test': 'flows-error' });
  let alive = true;
  let timer = null;

  // ---- search ----
  const qDpid = h('input', { id: 'q-dpid', placeholder: 'any switch', 'data-test': 'search-dpid' });
  const qFrom = h('input', { id: 'q-cookie-from', placeholder: '0x0', 'data-test': 'search-cookie-from' });
  const qTo = h('input', { id: 'q-cookie-to', placeholder: '0xffffffffffffffff', 'data-test': 'search-cookie-to' });
  const qState = h('select', { id: 'q-state', 'data-test': 'search-state' },
    ['any', 'installed', 'pending', 'error', 'deleted'].map((s) => h('option', { value: s }, s)));
  const search = h('form', { class: 'search', 'data-test': 'flow-search' },
    h('label', { for: 'q-dpid' }, 'Switch'), qDpid,
    h('label', { for: 'q-cookie-from' }, 'Cookies from'), qFrom,
    h('label', { for: 'q-cookie-to' }, 'to'), qTo,
    h('label', { for: 'q-state' }, 'State'), qState,
    h('button', { type: 'submit', 'data-test': 'search-submit' }, 'Search'));
  search.addEventListener('submit', (e) => { e.preventDefault(); load(); });

  const list = table({
    rowTest: 'flow-row', filterTest: 'flow-filter', rowKey: (f) => `${f.switch}/${f.id}`,
    empty: 'no stored flow matches',
    columns: [
      { key: 'switch', label: 'Switch', value: (f) => f.switch,
        render: (f) => h('a', { href: `#/switch/${f.switch}` }, f.switch) },
      { key: 'state', label: 'State', value: (f) => f.state,
        render: (f) => h('span', { class: `state ${f.state}`, 'data-test': 'flow-state' }, f.state) },
      { key: 'priority', label: 'Priority', value: (f) => f.flow?.priority ?? null },
      { key: 'cookie', label: 'Cookie', value: (f) => `0x${big(f.flow?.cookie).toString(16)}` },
      { key: 'match', label: 'Match', value: (f) => stringifyJson(f.flow?.match || {}) },
      { key: 'actions', label: 'Actions', value: (f) => stringifyJson(f.flow?.actions || f.flow?.instructions || []) },
      { key: 'error', label: 'Error', value: (f) => (f.error ? f.error.description : '') },
      { key: 'delete', label: '', value: () => '',
        render: (f) => (f.state === 'deleted' ? '' : h('button', { class: 'danger', 'data-test': 'flow-delete',
          onclick: () => remove(f) }, 'Delete')) },
    ],
  });

  // ---- add ----
  const fields = {};
  const fieldErr = {};
  function field(name, label, input) {
    fields[name] = input;
    fieldErr[name] = h('span', { class: 'field-error', role: 'alert', 'data-test': `error-${name}` });
    input.id = `add-${name}`;
    input.setAttribute('data-test', `add-${name}`);
    return h('div', { class: 'field' }, h('label', { for: input.id }, label), input, fieldErr[name]);
  }
  const ok = h('p', { class: 'ok', role: 'status', 'data-test': 'add-result' });
  const add = h('form', { class: 'add', 'data-test': 'flow-add' },
    h('h2', {}, 'Add a flow'),
    field('switch', 'Switch (dpid)', h('input', { required: true, placeholder: '00:00:00:00:00:00:10:01' })),
    field('priority', 'Priority', h('input', { value: '1000', inputmode: 'numeric' })),
    field('table_id', 'Table', h('input', { value: '0', inputmode: 'numeric' })),
    field('cookie', 'Cookie', h('input', { value: '0' })),
    field('match', 'Match (JSON)', h('textarea', { rows: 3, value: '{"in_port": 1}' })),
    field('actions', 'Actions (JSON)', h('textarea', { rows: 3, value: '[{"action_type": "output", "port": 2}]' })),
    h('button', { type: 'submit', 'data-test': 'add-submit' }, 'Add'), ok);
  add.addEventListener('submit', async (e) => {
    e.preventDefault();
    for (const s of Object.values(fieldErr)) s.textContent = '';
    ok.textContent = '';
    const flow = {};
    const num = (name) => {
      const t = fields[name].value.trim();
      return /^\d+$/.test(t) ? Number(t) : t;   // anything else goes as typed: the API says what is wrong
    };
    flow.priority = num('priority');
    flow.table_id = num('table_id');
    const c = fields.cookie.value.trim();
    flow.cookie = /^(0x[0-9a-f]+|\d+)$/i.test(c) ? new Big(BigInt(c).toString()) : c;
    for (const name of ['match', 'actions']) {
      try {
        flow[name] = parseJson(fields[name].value || (name === 'match' ? '{}' : '[]'));
      } catch (x) {
        fieldErr[name].textContent = `not JSON: ${x.message}`;
        return;
      }
    }
    const dpid = fields.switch.value.trim();
    const body = { flows: [flow] };
    try {
      await api(`${FM}/flows/${encodeURIComponent(dpid)}`, { method: 'POST', body });
      ok.textContent = `Stored: the flow goes to ${dpid} now.`;
      if (!qDpid.value) qDpid.value = dpid;
      load();
    } catch (x) {
      fieldErr[fieldOf(x.description)].textContent = x.description;
    }
  });

  el.append(h('h1', {}, 'Flows'), err, search, list.el, add);

  async function remove(f) {
    if (!(await confirmDialog(`Delete this flow from ${f.switch}? ${stringifyJson(f.flow?.match || {})}`))) return;
    const spec = { match: f.flow?.match || {}, table_id: f.flow?.table_id ?? 0, priority: f.flow?.priority,
      cookie: new Big(big(f.flow?.cookie).toString()), cookie_mask: ALL_COOKIES };
    const body = { flows: [spec] };
    try {
      await api(`${FM}/flows/${f.switch}`, { method: 'DELETE', body });
      load();
    } catch (x) {
      err.textContent = `Cannot delete: ${x.description}`;
    }
  }

  async function load() {
    timer = null;
    const q = new URLSearchParams();
    if (qDpid.value.trim()) q.append('dpid', dpidText(qDpid.value.trim()));
    if (qState.value !== 'any') q.append('state', qState.value);
    if (qFrom.value.trim() || qTo.value.trim()) {
      try {
        q.append('cookie_range', BigInt(qFrom.value.trim() || '0').toString());
        q.append('cookie_range', BigInt(qTo.value.trim() || ALL_COOKIES.text).toString());
      } catch {
        err.textContent = 'A cookie is a number (decimal, or hexadecimal with 0x).';
        return;
      }
    }
    try {
      const j = await api(`${FM}/stored_flows?${q}`);
      if (!alive) return;
      list.set(Object.values(j).flat());
      err.textContent = '';
    } catch (x) {
      if (alive) err.textContent = `Cannot read the flows: ${x.description}`;
    }
  }

  const off = onEvent((kind) => {
    if (/^(flow\.|stream\.open)/.test(kind) && !timer) timer = setTimeout(load, 300);
  });
  load();
  return () => { alive = false; off(); clearTimeout(timer); clear(el); };
}
