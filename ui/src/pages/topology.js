// Topology: every switch and link (GET /api/v1/topology) on a canvas
// (canvasgraph.js, placed by placement.js), links coloured
// by state and kept current by the event stream; a click shows details; a dragged switch keeps its place (saved in
// the switch's topology metadata as ui_x/ui_y, so it survives a reload and
// a restart). Beside the graph, the links as a table.
import { h, clear, seconds, counterSum } from '../dom.js';
import { api, serverConfig } from '../api.js';
import { onEvent } from '../stream.js';
import { table } from '../table.js';
import { canvasGraph } from '../canvasgraph.js';
import { place, savedPositions, ifaceSwitch } from '../placement.js';

const TOPO = '/api/kytos/topology/v3';

export default function topology(el) {
  const err = h('p', { class: 'error', role: 'alert', 'data-test': 'topology-error' });
  const status = h('p', { class: 'note', 'data-test': 'topology-status' }, 'loading…');
  const timing = h('p', { class: 'note', 'data-test': 'topology-timing' });
  const canvas = h('div', { class: 'graph', 'data-test': 'topology-graph', tabindex: 0,
    'aria-label': 'topology graph: drag a switch to move it; arrows pan, + and - zoom, 0 fits' });
  const details = h('aside', { class: 'details', 'data-test': 'details', 'aria-live': 'polite' },
    h('p', { class: 'note' }, 'Click a switch or a link for its details.'));
  const links = table({
    rowTest: 'link-row', filterTest: 'link-filter', rowKey: (l) => l.id,
    columns: [
      { key: 'a', label: 'End A', value: (l) => l.a },
      { key: 'b', label: 'End B', value: (l) => l.b },
      { key: 'state', label: 'State', value: (l) => l.state,
        render: (l) => h('span', { class: `state ${l.state}`, 'data-test': 'link-state' }, l.state) },
      { key: 'enabled', label: 'Enabled', value: (l) => (l.enabled ? 'yes' : 'no') },
      { key: 'age', label: 'For', value: (l) => l.age_s, render: (l) => seconds(l.age_s) },
      { key: 'downs', label: 'Downs', value: (l) => l.downs },
    ],
    onRow: (tr, l) => tr.addEventListener('click', () => select(l.id)),
  });
  el.append(h('h1', {}, 'Topology'), err, status, timing,
    h('div', { class: 'topo' }, canvas, details), h('h2', {}, 'Links'), links.el);

  let g = null;
  let alive = true;
  let data = { nodes: [], links: [] };
  let reloadTimer = null;
  const t0 = performance.now();

  function edgeClass(l) {
    return `${l.state}${l.enabled ? '' : ' disabled'}`;
  }

  function build(positions, fetched) {
    const placed = positions.size;
    place(data.nodes, data.links, positions);
    const laidOut = performance.now();
    g = canvasGraph(canvas, {
      onTapNode: showSwitch,
      onTapEdge: showLink,
      onMoved: savePosition,
    });
    g.set(data.nodes.map((n) => ({ id: n.dpid, ...positions.get(n.dpid), cls: n.connected ? 'up' : 'down',
      label: n.dpid.slice(-5) })),
    data.links.map((l) => ({ id: l.id, source: ifaceSwitch(l.a), target: ifaceSwitch(l.b), cls: edgeClass(l) })));
    status.textContent = `${data.nodes.length} switches, ${data.links.length} links`;
    // Ready once the graph is on the screen.
    g.drawn().then(() => {
      const now = performance.now();
      const ms = Math.round(now - t0);
      canvas.dataset.renderMs = String(ms);
      canvas.dataset.ready = 'true';
      timing.textContent = `On the screen in ${ms} ms (read ${Math.round(fetched - t0)}, placed ` +
        `${Math.round(laidOut - fetched)}, drawn ${Math.round(now - laidOut)})` +
        (placed ? `; ${placed} switches where they were left` : '');
    });
  }

  async function savePosition(id, p) {
    try {
      await api(`${TOPO}/switches/${id}/metadata`, { method: 'POST',
        body: { ui_x: Math.round(p.x), ui_y: Math.round(p.y) } });
      err.textContent = '';
      canvas.dataset.saved = String(Number(canvas.dataset.saved || 0) + 1);
    } catch (e) {
      err.textContent = `The position of ${id} was not saved: ${e.description}`;
    }
  }

  function select(id) {
    if (!g) return;
    g.select(id);
    showLink(id);
  }

  function showSwitch(dpid) {
    const n = nodeById.get(dpid);
    const mine = data.links.filter((l) => ifaceSwitch(l.a) === dpid || ifaceSwitch(l.b) === dpid);
    clear(details).append(h('h2', {}, 'Switch'),
      h('dl', {},
        h('dt', {}, 'dpid'), h('dd', { 'data-test': 'detail-dpid' }, dpid),
        h('dt', {}, 'state'), h('dd', {}, n && n.connected ? 'connected' : 'disconnected'),
        h('dt', {}, 'ports'), h('dd', {}, n ? n.ports : ''),
        h('dt', {}, 'links'), h('dd', {}, `${mine.filter((l) => l.state === 'up').length} up of ${mine.length}`)),
      h('a', { href: `#/switch/${dpid}`, 'data-test': 'detail-open-switch' }, 'Open its page'));
  }

  // A link end's port: its name, state and counters from its switch.
  async function endPort(iface, dd) {
    const sw = ifaceSwitch(iface), no = Number(iface.split(':')[8]);
    try {
      const s = await api(`/api/v1/switches/${sw}`);
      const p = (s.ports || []).find((x) => x.port_no === no);
      if (!p) return;
      const c = p.counters;
      dd.append(h('div', { class: 'note', 'data-test': 'detail-port' }, `${p.name}, link ${p.link}` +
        (c ? `; rx ${c.rx_packets} pkts / ${c.rx_bytes} B, tx ${c.tx_packets} pkts / ${c.tx_bytes} B` +
          `, dropped ${counterSum(c, ['rx_dropped', 'tx_dropped']) ?? '–'}, errors ${counterSum(c, ['rx_errors', 'tx_errors']) ?? '–'}`
          : '; no counters yet')));
    } catch {
      /* the switch went meanwhile: its end says nothing more */
    }
  }

  function showLink(id) {
    const l = linkById.get(id);
    if (!l) return;
    const end = (i) => {
      const dd = h('dd', { 'data-test': i === l.a ? 'detail-a' : 'detail-b' },
        h('a', { href: `#/switch/${ifaceSwitch(i)}` }, i));
      endPort(i, dd);
      return dd;
    };
    clear(details).append(h('h2', {}, 'Link'),
      h('dl', {},
        h('dt', {}, 'end A'), end(l.a),
        h('dt', {}, 'end B'), end(l.b),
        h('dt', {}, 'state'), h('dd', { 'data-test': 'detail-state' }, l.state + (l.why ? ` (${l.why})` : '')),
        h('dt', {}, 'enabled'), h('dd', {}, l.enabled ? 'yes' : 'no'),
        h('dt', {}, 'for'), h('dd', {}, seconds(l.age_s)),
        h('dt', {}, 'ups / downs'), h('dd', {}, `${l.ups} / ${l.downs}`),
        h('dt', {}, 'id'), h('dd', { class: 'mono' }, l.id)));
  }

  // Elements by id: an event finds its element without a walk over 10,000
  // links, and a burst of events redraws the links table once.
  let linkById = new Map();
  let nodeById = new Map();
  let tableFrame = 0;
  function index() {
    linkById = new Map(data.links.map((l) => [l.id, l]));
    nodeById = new Map(data.nodes.map((n) => [n.dpid, n]));
  }
  function tableSoon() {
    if (!tableFrame) tableFrame = requestAnimationFrame(() => { tableFrame = 0; links.set(data.links); });
  }

  // An event that comes while a read is on its way may be older than the
  // answer or newer: the read's answer replaces what the event changed, so
  // the graph is read once more after it (stale).
  let reading = false;
  let stale = false;

  async function load(first) {
    reloadTimer = null;
    if (!(await serverConfig()).topology) {
      err.textContent = 'The topology app is off: apps.topology = true in the configuration turns it on.';
      return;
    }
    reading = true;
    try {
      const topo = await api('/api/v1/topology');
      if (!alive) return;
      data = { nodes: topo.nodes, links: topo.links };
      index();
      links.set(data.links);
      err.textContent = '';
      if (first) build(savedPositions(topo.nodes), performance.now());
      else sync();
    } catch (e) {
      if (alive) err.textContent = `Cannot read the topology: ${e.description}`;
    } finally {
      reading = false;
      if (stale && alive) {
        stale = false;
        soon();
      }
    }
  }

  // A reload of the data keeps the graph (and where the user put things):
  // only new or gone elements change, and every class follows its state.
  function sync() {
    if (!g) return;
    const ids = new Set();
    for (const n of data.nodes) {
      ids.add(n.dpid);
      if (!g.hasNode(n.dpid)) {
        const ext = g.extent();
        g.addNode({ id: n.dpid, x: ext.x1 + Math.random() * ext.w, y: ext.y1 + Math.random() * ext.h,
          label: n.dpid.slice(-5) });
      }
      g.nodeClass(n.dpid, n.connected ? 'up' : 'down');
    }
    for (const l of data.links) {
      ids.add(l.id);
      if (!g.hasEdge(l.id)) g.addEdge({ id: l.id, source: ifaceSwitch(l.a), target: ifaceSwitch(l.b) });
      g.edgeClass(l.id, edgeClass(l));
    }
    g.remove(ids);
    status.textContent = `${data.nodes.length} switches, ${data.links.length} links`;
  }

  function soon() {
    if (!reloadTimer) reloadTimer = setTimeout(() => load(false), 250);
  }

  // Events change one element at once; only what an event does not say
  // fully (a link not seen yet, a port change) reads the graph again, once
  // per burst: at 10,000 links a read is megabytes.
  const off = onEvent((kind, ev) => {
    if (!g) return;
    if (reading) stale = true;
    if (kind === 'link.up' || kind === 'link.down' || kind === 'link.loop') {
      const l = linkById.get(ev.id);
      if (!l) {
        soon();
        return;
      }
      l.state = kind.slice(5);
      if (ev.why) l.why = ev.why;
      g.edgeClass(l.id, edgeClass(l));
      tableSoon();
    } else if (kind === 'switch.up' || kind === 'switch.down') {
      const n = nodeById.get(ev.dpid);
      if (!n) {
        soon();
        return;
      }
      n.connected = kind === 'switch.up';
      g.nodeClass(n.dpid, n.connected ? 'up' : 'down');
    } else if (/^(port\.|stream\.open)/.test(kind)) {
      soon();
    }
  });
  load(true);
  return () => {
    alive = false;
    off();
    clearTimeout(reloadTimer);
    cancelAnimationFrame(tableFrame);
    if (g) g.destroy();
  };
}
