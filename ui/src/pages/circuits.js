// Circuits: the EVCs of mef_eline v2 (GET /api/kytos/mef_eline/v2/evc/):
// each with its UNIs and tags, whether it is active, the switches its path
// crosses and its backup's; below, the picked one drawn on the topology
// (its path, its backup dashed, its ends ringed). Kept live by the
// circuits' events (evc.*) and the topology's (a link or switch that goes
// may move them). #/circuits/ID opens with that EVC picked; a click on a
// row picks another (and the address follows, for a bookmark).
import { h, ago } from '../dom.js';
import { api, serverConfig } from '../api.js';
import { onEvent } from '../stream.js';
import { table } from '../table.js';
import { canvasGraph } from '../canvasgraph.js';
import { place, ifaceSwitch } from '../placement.js';

const EL = '/api/kytos/mef_eline/v2/evc/';

function uni(u) {
  const t = u?.tag?.value;
  const tag = t === undefined ? '' : Array.isArray(t) ? ` VLANs ${JSON.stringify(t)}` : ` VLAN ${t}`;
  return `${u?.interface_id || ''}${tag}`;
}

// The switches a path crosses, in order from uni_a's.
function hops(path) {
  if (!path || !path.length) return '';
  return [ifaceSwitch(path[0].endpoint_a?.id || ''), ...path.map((l) => ifaceSwitch(l.endpoint_b?.id || ''))]
    .join(' → ');
}

function state(e) {
  if (!e.enabled) return 'disabled';
  return e.active ? 'active' : 'inactive';
}

const plural = (n, one) => `${n} ${one}${n === 1 ? '' : 's'}`;

export default function circuits(el, arg) {
  const err = h('p', { class: 'error', role: 'alert', 'data-test': 'circuits-error' });
  let picked = arg || null;
  let evcs = [];
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
    onRow: (tr, e) => {
      tr.classList.toggle('picked', e.id === picked);
      tr.setAttribute('aria-selected', String(e.id === picked));
      tr.addEventListener('click', () => pick(e.id));
    },
  });
  const caption = h('p', { class: 'note', 'data-test': 'circuit-caption', 'aria-live': 'polite' });
  const canvas = h('div', { class: 'graph', 'data-test': 'circuit-graph', tabindex: 0,
    'aria-label': 'the picked circuit on the topology: arrows pan, + and - zoom, 0 fits' });
  el.append(h('h1', {}, 'Circuits'), err, t.el, h('h2', {}, 'On the topology'), caption, canvas);

  let alive = true;
  let timer = null;
  let asked = 0;                // a later load's answer wins, whatever order they come in
  let g = null;
  let topo = null;              // {nodes, links} of GET /api/v1/topology
  let drawnIds = '';            // the elements the graph holds (a change rebuilds it)
  let where = new Map();        // dpid -> {x, y}, kept across rebuilds
  let topoOn = true;

  function pick(id) {
    picked = id;
    history.replaceState(null, '', `#/circuits/${encodeURIComponent(id)}`);
    t.set(evcs);
    paint();
  }

  // Every element's class from its state and the picked EVC's paths.
  function paint() {
    const e = evcs.find((x) => x.id === picked);
    const onPath = new Set((e?.current_path || []).map((l) => l.id));
    const onBackup = new Set((e?.failover_path || []).map((l) => l.id));
    const ends = new Set(e ? [ifaceSwitch(e.uni_a?.interface_id || ''), ifaceSwitch(e.uni_z?.interface_id || '')] : []);
    if (g && topo) {
      for (const n of topo.nodes) g.nodeClass(n.dpid, `${n.connected ? 'up' : 'down'}${ends.has(n.dpid) ? ' end' : ''}`);
      for (const l of topo.links) {
        const mark = onPath.has(l.id) ? ' path' : onBackup.has(l.id) ? ' backup' : '';
        g.edgeClass(l.id, `${l.state}${l.enabled ? '' : ' disabled'}${mark}`);
      }
    }
    canvas.dataset.circuit = e ? e.id : '';
    canvas.hidden = !topoOn;
    if (!topoOn) caption.textContent = 'The topology app is off: no path to draw (apps.topology = true turns it on).';
    else if (!e) caption.textContent = evcs.length ? 'Click a circuit to draw it on the topology.' : '';
    else if (!e.active) caption.textContent = `${e.name}: ${state(e)}, no path laid; its ends are ringed.`;
    else if (!onPath.size) caption.textContent = `${e.name}: both ends on one switch (ringed).`;
    else {
      caption.textContent = `${e.name}: its path, ${plural(onPath.size, 'link')}, in purple` +
        (onBackup.size ? `; its backup, ${plural(onBackup.size, 'link')}, dashed amber` : '; no backup') +
        '; its ends ringed.';
    }
  }

  // The topology on the canvas: built again only when its switches or
  // links change (and then fitted), else only painted.
  function draw() {
    const ids = [...topo.nodes.map((n) => n.dpid), ...topo.links.map((l) => l.id)].sort().join(' ');
    if (!g) g = canvasGraph(canvas, {});
    if (ids !== drawnIds) {
      drawnIds = ids;
      // Where the operator left a switch (the Topology page saves it),
      // else where this page put it before, else placed now.
      const kept = new Map();
      for (const n of topo.nodes) {
        const m = n.metadata || {};
        if (Number.isFinite(m.ui_x) && Number.isFinite(m.ui_y)) kept.set(n.dpid, { x: m.ui_x, y: m.ui_y });
        else if (where.has(n.dpid)) kept.set(n.dpid, where.get(n.dpid));
      }
      where = place(topo.nodes, topo.links, kept);
      g.set(topo.nodes.map((n) => ({ id: n.dpid, ...where.get(n.dpid), label: n.dpid.slice(-5) })),
        topo.links.map((l) => ({ id: l.id, source: ifaceSwitch(l.a), target: ifaceSwitch(l.b) })));
    }
    paint();
    g.drawn().then(() => { canvas.dataset.ready = 'true'; });
  }

  async function load() {
    timer = null;
    const mine = ++asked;
    const cfg = await serverConfig();
    if (!cfg.circuits) {
      // Nothing asked of an API that is not there.
      err.textContent = 'The circuits app is off (apps.mef_eline = true turns it on).';
      err.dataset.off = 'true';
      return;
    }
    topoOn = cfg.topology;
    try {
      const [list, tp] = await Promise.all([api(EL), topoOn ? api('/api/v1/topology') : null]);
      if (!alive || mine !== asked) return;
      evcs = Object.values(list);
      if (!picked && evcs.length) picked = [...evcs].sort((x, y) => (x.name || '').localeCompare(y.name || ''))[0].id;
      t.set(evcs);
      err.textContent = '';
      if (tp) {
        topo = tp;
        draw();
      } else {
        paint();
      }
    } catch (e) {
      if (!alive || mine !== asked) return;
      err.textContent = e.status === 404 ? 'The circuits app is off (apps.mef_eline = true turns it on).'
        : `Cannot read the circuits: ${e.description}`;
    }
  }
  const off = onEvent((kind) => {
    if (/^(evc\.|link\.|switch\.|port\.|stream\.open)/.test(kind) && !timer) timer = setTimeout(load, 200);
  });
  load();
  return () => { alive = false; off(); clearTimeout(timer); if (g) g.destroy(); };
}
