// Topology: every switch and link (GET /api/v1/topology) on a canvas
// (cytoscape), links coloured by state and kept current by the event
// stream; a click shows details; a dragged switch keeps its place (saved in
// the switch's topology metadata as ui_x/ui_y, so it survives a reload and
// a restart). Beside the graph, the links as a table.
import cytoscape from 'cytoscape';
import fcose from 'cytoscape-fcose';
import { h, clear, seconds } from '../dom.js';
import { api } from '../api.js';
import { onEvent } from '../stream.js';
import { table } from '../table.js';
import { layered } from '../layout.js';

cytoscape.use(fcose);

const TOPO = '/api/kytos/topology/v3';

function ifaceSwitch(id) {
  return id.split(':').slice(0, 8).join(':');
}

export default function topology(el) {
  const err = h('p', { class: 'error', role: 'alert', 'data-test': 'topology-error' });
  const status = h('p', { class: 'note', 'data-test': 'topology-status' }, 'loading…');
  const timing = h('p', { class: 'note', 'data-test': 'topology-timing' });
  const canvas = h('div', { class: 'graph', 'data-test': 'topology-graph', tabindex: 0,
    'aria-label': 'topology graph: drag a switch to move it' });
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

  let cy = null;
  let alive = true;
  let data = { nodes: [], links: [] };
  let reloadTimer = null;
  const t0 = performance.now();

  function edgeClass(l) {
    return `${l.state}${l.enabled ? '' : ' disabled'}`;
  }

  function build(positions, fetched) {
    const elements = [];
    const big = data.nodes.length > 300;
    const placed = positions.size;
    // At scale every switch not placed by the operator is placed here, in
    // linear time, before the graph is made: no layout runs on the canvas.
    if (big && placed < data.nodes.length) {
      const auto = layered(data.nodes.map((n) => n.dpid), data.links.map((l) => [ifaceSwitch(l.a), ifaceSwitch(l.b)]));
      for (const [id, p] of auto) if (!positions.has(id)) positions.set(id, p);
    }
    for (const n of data.nodes) {
      const p = positions.get(n.dpid);
      elements.push({ group: 'nodes', data: { id: n.dpid, label: n.dpid.slice(-5) },
        position: p ? { ...p } : undefined, classes: n.connected ? 'up' : 'down' });
    }
    const known = new Set(data.nodes.map((n) => n.dpid));
    for (const l of data.links) {
      const a = ifaceSwitch(l.a), b = ifaceSwitch(l.b);
      if (!known.has(a) || !known.has(b)) continue;
      elements.push({ group: 'edges', data: { id: l.id, source: a, target: b }, classes: edgeClass(l) });
    }
    cy = cytoscape({
      container: canvas, elements, minZoom: 0.05, maxZoom: 4,
      textureOnViewport: big, hideEdgesOnViewport: big, pixelRatio: big ? 1 : 'auto',
      style: [
        { selector: 'node', style: { 'background-color': '#2f855a', label: big ? '' : 'data(label)',
          'font-size': 9, color: '#1a202c', width: 16, height: 16 } },
        { selector: 'node.down', style: { 'background-color': '#c53030' } },
        { selector: 'node:selected', style: { 'border-width': 3, 'border-color': '#2b6cb0' } },
        { selector: 'edge', style: { width: 2, 'line-color': '#38a169', 'curve-style': big ? 'haystack' : 'bezier' } },
        { selector: 'edge.down', style: { 'line-color': '#e53e3e' } },
        { selector: 'edge.loop', style: { 'line-color': '#dd6b20' } },
        { selector: 'edge.disabled', style: { 'line-style': 'dashed', 'line-color': '#a0aec0' } },
        { selector: 'edge:selected', style: { width: 4, 'line-color': '#2b6cb0' } },
      ],
      layout: { name: 'preset' },
    });
    const loose = cy.nodes().filter((n) => !positions.has(n.id()));
    if (loose.length) {
      const fixed = cy.nodes().filter((n) => positions.has(n.id()))
        .map((n) => ({ nodeId: n.id(), position: n.position() }));
      cy.layout({ name: 'fcose', randomize: true, animate: false,
        fixedNodeConstraint: fixed.length ? fixed : undefined, nodeRepulsion: 8000,
        idealEdgeLength: 60 }).run();
    }
    status.textContent = `${data.nodes.length} switches, ${data.links.length} links`;
    const laidOut = performance.now();
    cy.fit(undefined, 20);
    cy.on('tap', 'node', (e) => showSwitch(e.target.id()));
    cy.on('tap', 'edge', (e) => showLink(e.target.id()));
    cy.on('dragfree', 'node', (e) => savePosition(e.target));
    // Ready once the first frame with the graph is on the screen.
    requestAnimationFrame(() => requestAnimationFrame(() => {
      const now = performance.now();
      const ms = Math.round(now - t0);
      canvas.dataset.renderMs = String(ms);
      canvas.dataset.ready = 'true';
      timing.textContent = `On the screen in ${ms} ms (read ${Math.round(fetched - t0)}, placed ` +
        `${Math.round(laidOut - fetched)}, drawn ${Math.round(now - laidOut)})` +
        (placed ? `; ${placed} switches where they were left` : '');
    }));
  }

  async function savePosition(node) {
    const p = node.position();
    try {
      await api(`${TOPO}/switches/${node.id()}/metadata`, { method: 'POST',
        body: { ui_x: Math.round(p.x), ui_y: Math.round(p.y) } });
      err.textContent = '';
      canvas.dataset.saved = String(Number(canvas.dataset.saved || 0) + 1);
    } catch (e) {
      err.textContent = `The position of ${node.id()} was not saved: ${e.description}`;
    }
  }

  function select(id) {
    if (!cy) return;
    cy.$(':selected').unselect();
    const e = cy.getElementById(id);
    if (e.nonempty()) e.select();
    showLink(id);
  }

  function showSwitch(dpid) {
    const n = data.nodes.find((x) => x.dpid === dpid);
    const mine = data.links.filter((l) => ifaceSwitch(l.a) === dpid || ifaceSwitch(l.b) === dpid);
    clear(details).append(h('h2', {}, 'Switch'),
      h('dl', {},
        h('dt', {}, 'dpid'), h('dd', { 'data-test': 'detail-dpid' }, dpid),
        h('dt', {}, 'state'), h('dd', {}, n && n.connected ? 'connected' : 'disconnected'),
        h('dt', {}, 'ports'), h('dd', {}, n ? n.ports : ''),
        h('dt', {}, 'links'), h('dd', {}, `${mine.filter((l) => l.state === 'up').length} up of ${mine.length}`)),
      h('a', { href: `#/switch/${dpid}`, 'data-test': 'detail-open-switch' }, 'Open its page'));
  }

  function showLink(id) {
    const l = data.links.find((x) => x.id === id);
    if (!l) return;
    const end = (i) => h('a', { href: `#/switch/${ifaceSwitch(i)}` }, i);
    clear(details).append(h('h2', {}, 'Link'),
      h('dl', {},
        h('dt', {}, 'end A'), h('dd', { 'data-test': 'detail-a' }, end(l.a)),
        h('dt', {}, 'end B'), h('dd', { 'data-test': 'detail-b' }, end(l.b)),
        h('dt', {}, 'state'), h('dd', { 'data-test': 'detail-state' }, l.state + (l.why ? ` (${l.why})` : '')),
        h('dt', {}, 'enabled'), h('dd', {}, l.enabled ? 'yes' : 'no'),
        h('dt', {}, 'for'), h('dd', {}, seconds(l.age_s)),
        h('dt', {}, 'ups / downs'), h('dd', {}, `${l.ups} / ${l.downs}`),
        h('dt', {}, 'id'), h('dd', { class: 'mono' }, l.id)));
  }

  // Where the operator left each switch: ui_x/ui_y in its metadata.
  function positions(nodes) {
    const pos = new Map();
    for (const n of nodes) {
      const m = n.metadata || {};
      if (Number.isFinite(m.ui_x) && Number.isFinite(m.ui_y)) pos.set(n.dpid, { x: m.ui_x, y: m.ui_y });
    }
    return pos;
  }

  async function load(first) {
    reloadTimer = null;
    try {
      const g = await api('/api/v1/topology');
      if (!alive) return;
      data = { nodes: g.nodes, links: g.links };
      links.set(data.links);
      err.textContent = '';
      if (first) build(positions(g.nodes), performance.now());
      else sync();
    } catch (e) {
      if (alive) err.textContent = `Cannot read the topology: ${e.description}`;
    }
  }

  // A reload of the data keeps the graph (and where the user put things):
  // only new or gone elements change, and every class follows its state.
  function sync() {
    if (!cy) return;
    const ids = new Set();
    for (const n of data.nodes) {
      ids.add(n.dpid);
      let node = cy.getElementById(n.dpid);
      if (node.empty()) {
        const ext = cy.extent();
        node = cy.add({ group: 'nodes', data: { id: n.dpid, label: n.dpid.slice(-5) },
          position: { x: ext.x1 + Math.random() * ext.w, y: ext.y1 + Math.random() * ext.h } });
      }
      node.classes(n.connected ? 'up' : 'down');
    }
    for (const l of data.links) {
      ids.add(l.id);
      const a = ifaceSwitch(l.a), b = ifaceSwitch(l.b);
      let e = cy.getElementById(l.id);
      if (e.empty() && cy.getElementById(a).nonempty() && cy.getElementById(b).nonempty())
        e = cy.add({ group: 'edges', data: { id: l.id, source: a, target: b } });
      if (e.nonempty()) e.classes(edgeClass(l));
    }
    cy.elements().filter((x) => !ids.has(x.id())).remove();
    status.textContent = `${data.nodes.length} switches, ${data.links.length} links`;
  }

  function soon() {
    if (!reloadTimer) reloadTimer = setTimeout(() => load(false), 250);
  }

  // Events change one element at once; anything the event does not say
  // fully (a new link, a port change) reads the graph again, once per burst.
  const off = onEvent((kind, ev) => {
    if ((kind === 'link.up' || kind === 'link.down' || kind === 'link.loop') && cy) {
      const l = data.links.find((x) => x.id === ev.id);
      if (l) {
        l.state = kind.slice(5);
        if (ev.why) l.why = ev.why;
        const e = cy.getElementById(l.id);
        if (e.nonempty()) e.classes(edgeClass(l));
        links.set(data.links);
      }
      soon();
    } else if (/^(switch\.|port\.|link\.|stream\.open)/.test(kind)) {
      soon();
    }
  });
  load(true);
  return () => {
    alive = false;
    off();
    clearTimeout(reloadTimer);
    if (cy) cy.destroy();
  };
}
