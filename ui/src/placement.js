// Where each switch of a topology is drawn, shared by the pages that draw
// one (Topology, Circuits): where the operator left it (ui_x/ui_y in its
// topology metadata), else a force-directed layout for small graphs
// (cytoscape without a screen, fcose) or layers at scale (layout.js,
// linear time), placed around the switches the operator placed, which stay.
//
//   const pos = place(topo.nodes, topo.links)   // Map dpid -> {x, y}
import cytoscape from 'cytoscape';
import fcose from 'cytoscape-fcose';
import { layered } from './layout.js';

cytoscape.use(fcose);

// "00:..:01:7" -> "00:..:01": an interface id's switch (its first 8 bytes).
export function ifaceSwitch(id) {
  return id.split(':').slice(0, 8).join(':');
}

// Where the operator left each switch: ui_x/ui_y in its metadata.
export function savedPositions(nodes) {
  const pos = new Map();
  for (const n of nodes) {
    const m = n.metadata || {};
    if (Number.isFinite(m.ui_x) && Number.isFinite(m.ui_y)) pos.set(n.dpid, { x: m.ui_x, y: m.ui_y });
  }
  return pos;
}

// nodes [{dpid, metadata}], links [{id, a, b}] (GET /api/v1/topology):
// every switch's place; positions given (default: the saved ones) stay.
export function place(nodes, links, positions = savedPositions(nodes)) {
  const ids = nodes.map((n) => n.dpid);
  if (positions.size === ids.length) return positions;
  if (ids.length > 300) {
    const pairs = links.map((l) => [ifaceSwitch(l.a), ifaceSwitch(l.b)]);
    for (const [id, p] of layered(ids, pairs)) if (!positions.has(id)) positions.set(id, p);
    return positions;
  }
  const known = new Set(ids);
  const cy = cytoscape({ headless: true, styleEnabled: true, elements: [
    ...ids.map((id) => ({ group: 'nodes', data: { id }, position: { ...(positions.get(id) || { x: 0, y: 0 }) } })),
    ...links.filter((l) => known.has(ifaceSwitch(l.a)) && known.has(ifaceSwitch(l.b)))
      .map((l) => ({ group: 'edges', data: { id: l.id, source: ifaceSwitch(l.a), target: ifaceSwitch(l.b) } })),
  ], style: [{ selector: 'node', style: { width: 16, height: 16 } }] });
  const fixed = [...positions].map(([nodeId, position]) => ({ nodeId, position }));
  cy.layout({ name: 'fcose', randomize: true, animate: false, fixedNodeConstraint: fixed.length ? fixed : undefined,
    nodeRepulsion: 8000, idealEdgeLength: 60 }).run();
  // fcose may move the whole drawing, fixed switches with it: the new ones
  // are placed where they are relative to the fixed ones.
  let dx = 0, dy = 0;
  if (fixed.length) {
    const p = cy.getElementById(fixed[0].nodeId).position();
    dx = fixed[0].position.x - p.x;
    dy = fixed[0].position.y - p.y;
  }
  for (const n of cy.nodes()) {
    if (!positions.has(n.id())) positions.set(n.id(), { x: n.position().x + dx, y: n.position().y + dy });
  }
  cy.destroy();
  return positions;
}
