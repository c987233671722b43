// Circuits: the EVCs of mef_eline v2 (GET /api/kytos/mef_eline/v2/evc/):
// each with its UNIs and tags, whether it is active, the switches its path
// crosses and its backup's; kept live by the circuits' events (evc.*) and
// the topology's (a link or switch that goes may move them).
import { h, ago } from '../dom.js';
import { api, serverConfig } from '../api.js';
import { onEvent } from '../stream.js';
import { table } from '../table.js';

const EL = '/api/kytos/mef_eline/v2/evc/';

// "00:..:01:7" -> "00:..:01" (a switch's id is the first 8 bytes).
const sw = (iface) => (iface || '').split(':').slice(0, 8).join(':');

function uni(u) {
  const t = u?.tag?.value;
  const tag = t === undefined ? '' : Array.isArray(t) ? ` VLANs ${JSON.stringify(t)}` : ` VLAN ${t}`;
  return `${u?.interface_id || ''}${tag}`;
}

// The switches a path crosses, in order from uni_a's.
function hops(path) {
  if (!path || !path.length) return '';
  return [sw(path[0].endpoint_a?.id), ...path.map((l) => sw(l.endpoint_b?.id))].join(' → ');
}

function state(e) {
  if (!e.enabled) return 'disabled';
  return e.active ? 'active' : 'inactive';
}

export default function circuits(el) {
  const err = h('p', { class: 'error', role: 'alert', 'data-test': 'circuits-error' });
  const t = table({
    rowTest: 'evc-row', filterTest: 'evc-filter', rowKey: (e) => e.id,
    empty: 'no circuit yet (POST /api/kytos/mef_eline/v2/evc/ makes one)',
    columns: [
      { key: 'name', label: 'Name', value: (e) => e.name, render: (e) => h('span', { 'data-test': 'evc-name' }, e.name) },
      { key: 'id', label: 'Id', value: (e) => e.id },
      { key: 'a', label: 'UNI A', value: (e) => uni(e.uni_a) },
      { key: 'z', label: 'UNI Z', value: (e) => uni(e.uni_z) },
      { key: 'state', label: 'State', value: (e) => state(e),
        render: (e) => h('span', { class: `state ${e.active ? 'up' : 'down'}`, 'data-test': 'evc-state' }, state(e)) },
      { key: 'path', label: 'Path', value: (e) => hops(e.current_path),
        render: (e) => h('span', { 'data-test': 'evc-path' }, hops(e.current_path) || (e.active ? 'one switch' : '—')) },
      { key: 'backup', label: 'Backup', value: (e) => hops(e.failover_path),
        render: (e) => h('span', { 'data-test': 'evc-backup' }, hops(e.failover_path) || 'none') },
      { key: 'deployed', label: 'Laid ago', value: (e) => e.last_deployed_at || '',
        render: (e) => (e.last_deployed_at ? ago(Date.parse(`${e.last_deployed_at}Z`) / 1000) : '') },
    ],
  });
  el.append(h('h1', {}, 'Circuits'), err, t.el);
  let alive = true;
  let timer = null;
  let asked = 0;                // a later load's answer wins, whatever order they come in

  async function load() {
    timer = null;
    const mine = ++asked;
    const cfg = await serverConfig();
    if (!cfg.circuits || cfg.cluster) {
      // Nothing asked of an API that is not there (or answers 501).
      err.textContent = cfg.cluster ? 'Circuits are not kept in a cluster yet.'
        : 'The circuits app is off (apps.mef_eline = true turns it on).';
      err.dataset.off = 'true';
      return;
    }
    try {
      const evcs = await api(EL);
      if (!alive || mine !== asked) return;
      t.set(Object.values(evcs));
      err.textContent = '';
    } catch (e) {
      if (!alive || mine !== asked) return;
      err.textContent = e.status === 404 ? 'The circuits app is off (apps.mef_eline = true turns it on).'
        : e.status === 501 ? 'Circuits are not kept in a cluster yet.'
          : `Cannot read the circuits: ${e.description}`;
    }
  }
  const off = onEvent((kind) => {
    if (/^(evc\.|link\.|switch\.|stream\.open)/.test(kind) && !timer) timer = setTimeout(load, 200);
  });
  load();
  return () => { alive = false; off(); clearTimeout(timer); };
}
