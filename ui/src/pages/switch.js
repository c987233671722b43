// One switch: its ports with state and counters (enable/disable each), its
// flows with their state and error reason, its flight record to download
// (live, or a frozen copy: admin only), and its events since the page
// opened.
import { h, clear, dpidText, ago, num, bytes, confirmDialog, counterSum } from '../dom.js';
import { api, big, download, stringifyJson, serverConfig } from '../api.js';
import { onEvent } from '../stream.js';
import { table } from '../table.js';

const TOPO = '/api/kytos/topology/v3';
const MAX_EVENTS = 200;

export default function switchPage(el, arg) {
  const dpid = dpidText(arg || '0');
  const err = h('p', { class: 'error', role: 'alert', 'data-test': 'switch-error' });
  const head = h('dl', { class: 'facts', 'data-test': 'switch-facts' });
  const evList = h('ol', { class: 'events', 'data-test': 'switch-events' });
  let alive = true;
  let timer = null;

  const ports = table({
    rowTest: 'port-row', filterTest: 'port-filter', rowKey: (p) => String(p.port_no),
    columns: [
      { key: 'port_no', label: 'Port', value: (p) => p.port_no },
      { key: 'name', label: 'Name', value: (p) => p.name },
      { key: 'link', label: 'Link', value: (p) => p.link,
        render: (p) => h('span', { class: `state ${p.link}`, 'data-test': 'port-link' }, p.link) },
      { key: 'admin', label: 'Admin', value: (p) => (p.admin_down ? 'down' : 'up') },
      { key: 'hw', label: 'MAC', value: (p) => p.hw_addr },
      { key: 'speed', label: 'Speed Mb/s', value: (p) => Math.round(p.curr_speed_kbps / 1000) },
      { key: 'rx_packets', label: 'RX packets', value: (p) => p.counters?.rx_packets ?? null },
      { key: 'tx_packets', label: 'TX packets', value: (p) => p.counters?.tx_packets ?? null },
      { key: 'rx_bytes', label: 'RX bytes', value: (p) => p.counters?.rx_bytes ?? null },
      { key: 'tx_bytes', label: 'TX bytes', value: (p) => p.counters?.tx_bytes ?? null },
      { key: 'rate', label: 'RX / TX kb/s', value: (p) => p.rate ?? null },
      { key: 'drops', label: 'Drops / errors', value: (p) => counterSum(p.counters, ['rx_dropped', 'tx_dropped', 'rx_errors', 'tx_errors']) },
      { key: 'enabled', label: 'Enabled', value: (p) => (p.enabled === null ? '' : p.enabled ? 'yes' : 'no'),
        render: (p) => {
          if (p.port_no > 0xffffff00) return '';
          if (p.enabled === null) {
            return h('span', { 'data-test': 'port-enabled-off', title: 'the topology app is off (apps.topology = true)' }, '—');
          }
          return h('button', { 'data-test': p.enabled ? 'port-disable' : 'port-enable', onclick: () => togglePort(p) },
            p.enabled ? 'Disable' : 'Enable');
        } },
    ],
  });
  const flows = table({
    rowTest: 'flow-row', filterTest: 'switch-flow-filter', rowKey: (f) => f.id,
    empty: 'no stored flow on this switch',
    columns: [
      { key: 'state', label: 'State', value: (f) => f.state,
        render: (f) => h('span', { class: `state ${f.state}`, 'data-test': 'flow-state' }, f.state) },
      { key: 'priority', label: 'Priority', value: (f) => f.flow?.priority ?? null },
      { key: 'table', label: 'Table', value: (f) => f.flow?.table_id ?? 0 },
      { key: 'cookie', label: 'Cookie', value: (f) => `0x${big(f.flow?.cookie).toString(16)}` },
      { key: 'match', label: 'Match', value: (f) => stringifyJson(f.flow?.match || {}) },
      { key: 'actions', label: 'Actions', value: (f) => stringifyJson(f.flow?.actions || f.flow?.instructions || []) },
      { key: 'error', label: 'Error', value: (f) => (f.error ? f.error.description : '') },
      { key: 'updated', label: 'Updated', value: (f) => f.updated_at },
    ],
  });
  const capNote = h('p', { 'data-test': 'capture-note' });
  const capErr = h('p', { class: 'error', role: 'alert', 'data-test': 'capture-error' });
  const frozen = table({
    rowTest: 'capture-row', filterTest: 'capture-filter', rowKey: (c) => String(c.id),
    empty: 'no frozen copy of this switch\'s record',
    columns: [
      { key: 'id', label: 'Copy', value: (c) => c.id },
      { key: 'time', label: 'Frozen at (UTC)', value: (c) => c.time },
      { key: 'kind', label: 'Why', value: (c) => c.kind,
        render: (c) => h('span', { 'data-test': 'capture-kind' }, c.kind) },
      { key: 'reason', label: 'Reason', value: (c) => c.reason },
      { key: 'bytes', label: 'Size', value: (c) => c.bytes, render: (c) => bytes(c.bytes) },
      { key: 'get', label: '', value: () => '',
        render: (c) => h('button', { 'data-test': 'capture-download', onclick: () => getCapture(c.id) },
          'Download') },
    ],
  });
  const capture = h('section', { 'data-test': 'capture' },
    h('h2', {}, 'Flight record'),
    h('p', {}, 'The switch\'s last OpenFlow messages each way as a pcapng file for Wireshark or tshark, ',
      'and copies frozen when it disconnected, sent an error or had its table mended.'),
    h('button', { 'data-test': 'capture-live', onclick: () => getCapture(0) }, 'Download the live record'),
    capErr, capNote, frozen.el);
  el.append(h('h1', {}, 'Switch ', h('span', { class: 'mono', 'data-test': 'switch-dpid' }, dpid)), err, head,
    h('h2', {}, 'Ports'), ports.el, h('h2', {}, 'Flows'), flows.el, capture,
    h('h2', {}, 'Events since this page opened'), evList);

  // id 0: the live record.
  async function getCapture(id) {
    const file = `ofcd-${dpid.replaceAll(':', '')}${id ? `-${id}` : ''}.pcapng`;
    try {
      await download(`/api/v1/switches/${dpid}/capture${id ? `?frozen=${id}` : ''}`, file);
      capErr.textContent = '';
    } catch (e) {
      capErr.textContent = `Cannot download the ${id ? `frozen copy ${id}` : 'live record'}: ${e.description || e.message}`;
    }
  }

  // The frozen copies: an admin's to see (403 otherwise: not asked again),
  // none without a recorder (404).
  let capturesRefused = false;
  async function loadCaptures() {
    if (capturesRefused) return;
    try {
      const c = await api(`/api/v1/switches/${dpid}/captures`);
      if (!alive) return;
      frozen.set(c.captures || []);
      frozen.el.hidden = false;
      capNote.textContent = `At most ${c.max} copies are kept for all switches, the oldest going first.`;
    } catch (e) {
      if (!alive) return;
      frozen.el.hidden = true;
      capturesRefused = e.status === 403 || e.status === 404;
      capNote.textContent = e.status === 403 ? 'Flight records are an administrator\'s to download.'
        : e.status === 404 ? 'The flight recorder is off (openflow.recorder_kb = 0).'
          : `Cannot list the frozen copies: ${e.description}`;
    }
  }

  async function togglePort(p) {
    const id = `${dpid}:${p.port_no}`;
    const what = p.enabled ? 'disable' : 'enable';
    if (!(await confirmDialog(`${what[0].toUpperCase()}${what.slice(1)} interface ${id} (${p.name})?` +
      (p.enabled ? ' Its link stops.' : '')))) return;
    try {
      await api(`${TOPO}/interfaces/${id}/${what}`, { method: 'POST' });
      load();
    } catch (e) {
      err.textContent = `Cannot ${what} ${id}: ${e.description}`;
    }
  }

  async function load() {
    timer = null;
    try {
      const withTopo = (await serverConfig()).topology;
      const [s, f, topo] = await Promise.all([api(`/api/v1/switches/${dpid}`),
        api(`/api/v1/switches/${dpid}/flows`), withTopo ? api(`${TOPO}/switches`) : { switches: null }]);
      if (!alive) return;
      const ifaces = (topo.switches?.[dpid]?.interfaces) || {};
      ports.set((s.ports || []).map((p) => ({ ...p,
        enabled: topo.switches ? ifaces[`${dpid}:${p.port_no}`]?.enabled !== false : null,
        rate: rateOf(p) })));
      flows.set(f.flows || []);
      loadCaptures();
      clear(head).append(
        h('dt', {}, 'state'), h('dd', { 'data-test': 'switch-state' }, s.connected ? 'connected' : 'disconnected'),
        h('dt', {}, s.connected ? 'connected for' : 'down for'),
        h('dd', {}, ago(s.connected ? s.connected_since : s.disconnected_since)),
        h('dt', {}, 'address'), h('dd', {}, topo.switches?.[dpid]?.connection || ''),
        h('dt', {}, 'description'), h('dd', {}, Object.values(s.description || {}).filter(Boolean).join(' · ')),
        h('dt', {}, 'echo RTT ms'), h('dd', {}, s.echo_rtt_ms ? `${num(s.echo_rtt_ms.average, 2)} (last ${num(s.echo_rtt_ms.last, 2)})` : '–'),
        h('dt', {}, 'flows in its table'), h('dd', {}, s.stats ? s.stats.flows : '–'));
      err.textContent = '';
    } catch (e) {
      if (alive) err.textContent = e.status === 404 ? `No switch ${dpid} is known.` : `Cannot read ${dpid}: ${e.description}`;
    }
  }

  // kb/s in and out since the poll before (the counters come with each
  // statistics poll, openflow.stats_interval_s).
  const seen = new Map();
  function rateOf(p) {
    const c = p.counters;
    if (!c) return null;
    const was = seen.get(p.port_no);
    if (!was || was.at_unix_ms !== c.at_unix_ms) seen.set(p.port_no, { ...c, prev: was });
    const cur = seen.get(p.port_no), prev = cur.prev;
    if (!prev || cur.at_unix_ms <= prev.at_unix_ms) return null;
    const s = (cur.at_unix_ms - prev.at_unix_ms) / 1000;
    const kb = (a, b) => Math.max(0, (a - b) * 8 / 1000 / s).toFixed(1);
    return `${kb(cur.rx_bytes, prev.rx_bytes)} / ${kb(cur.tx_bytes, prev.tx_bytes)}`;
  }

  function mine(ev) {
    const text = stringifyJson(ev);
    return text.includes(dpid) || (ev.dpid && dpidText(ev.dpid) === dpid);
  }

  const off = onEvent((kind, ev) => {
    if (kind === 'stream.open' || !mine(ev)) return;
    evList.prepend(h('li', { 'data-test': 'switch-event' }, h('time', {}, new Date().toLocaleTimeString()), ' ',
      h('b', {}, kind), ' ', stringifyJson(ev)));
    while (evList.children.length > MAX_EVENTS) evList.lastChild.remove();
    if (!timer) timer = setTimeout(load, 300);
  });
  const tick = setInterval(load, 5000);    // counters move without events
  load();
  return () => { alive = false; off(); clearTimeout(timer); clearInterval(tick); };
}
