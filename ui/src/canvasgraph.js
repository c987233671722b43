// The topology's drawing: switches as dots and links as lines on one
// canvas, drawn in a few batched paths per frame (a thousand switches and
// ten thousand links take milliseconds, where a general graph library
// spends seconds on per-element styles and bounding boxes). Pan by dragging
// the background, zoom with the wheel, drag a switch to move it, click a
// switch or a link to pick it; with the graph focused, arrows pan, + and -
// zoom, 0 fits it to its frame.
//
//   const g = canvasGraph(container, {onTapNode(id), onTapEdge(id), onMoved(id, {x, y})})
//   g.set(nodes [{id, x, y, cls, label}], edges [{id, source, target, cls}])
//   g.nodeClass(id, cls) / g.edgeClass(id, cls)   change one element's state
//   g.add / g.remove, g.fit(), g.select(id), g.destroy()
// Classes: a node 'up' or 'down', with ' end' when a circuit ends there
// (a ring); a link 'up', 'down' or 'loop', with ' disabled' when it is, and
// ' path' or ' backup' when a circuit's current or backup path crosses it
// (drawn so while the link is up: a path link that goes down shows down). The element keeps `ofcdGraph` (this object) for
// the tests, which read states, colours and positions from it.

export const COLORS = {
  up: '#38a169', down: '#e53e3e', loop: '#dd6b20', disabled: '#a0aec0', selected: '#2b6cb0',
  path: '#6b46c1', backup: '#b7791f',
  nodeUp: '#2f855a', nodeDown: '#c53030', end: '#6b46c1', label: '#1a202c',
};

const NODE_R = 6;          // a switch's radius on the screen, px, at any zoom
const HIT_EDGE = 4;        // px from a link that still picks it
const CLICK_SLOP = 4;      // px a press may move and still be a click

export function canvasGraph(container, handlers = {}) {
  // Out of the flow: the canvas's size follows its frame's, never the
  // other way round (a resize would otherwise feed itself).
  const canvas = document.createElement('canvas');
  canvas.style.cssText = 'position:absolute;left:0;top:0;display:block;touch-action:none';
  if (getComputedStyle(container).position === 'static') container.style.position = 'relative';
  container.append(canvas);
  const ctx = canvas.getContext('2d');
  const nodes = new Map();   // id -> {id, x, y, cls, label}
  const edges = new Map();   // id -> {id, s, t, cls}   (s, t: node objects)
  let scale = 1, ox = 0, oy = 0;   // screen = world * scale + offset
  let width = 0, height = 0, ratio = 1;
  let selected = null;
  let dirty = false;
  let frame = 0;
  const drawn = [];          // resolve functions waiting for the next frame

  function resize() {
    const r = container.getBoundingClientRect();
    ratio = nodes.size > 300 ? 1 : Math.min(2, window.devicePixelRatio || 1);
    width = Math.max(1, Math.floor(r.width));
    height = Math.max(1, Math.floor(r.height));
    canvas.width = width * ratio;
    canvas.height = height * ratio;
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    redraw();
  }
  const ro = new ResizeObserver(resize);
  ro.observe(container);

  function redraw() {
    if (dirty) return;
    dirty = true;
    frame = requestAnimationFrame(draw);
  }

  function edgeStyle(e) {
    if (selected === e.id) return 'selected';
    const t = e.cls.split(' ');
    const state = t[0] || 'up';
    if (state === 'up' && t.includes('path')) return 'path';
    if (state === 'up' && t.includes('backup')) return 'backup';
    if (t.includes('disabled')) return 'disabled';
    return state;
  }

  const WIDE = { selected: 4, path: 4, backup: 3 };
  const DASH = { disabled: [6, 4], backup: [8, 5] };

  function draw() {
    dirty = false;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    // Links: one path per look, each a batch of segments.
    const groups = { up: [], down: [], loop: [], disabled: [], backup: [], path: [], selected: [] };
    for (const e of edges.values()) groups[edgeStyle(e)].push(e);
    for (const [look, list] of Object.entries(groups)) {
      if (!list.length) continue;
      ctx.beginPath();
      for (const e of list) {
        ctx.moveTo(e.s.x * scale + ox, e.s.y * scale + oy);
        ctx.lineTo(e.t.x * scale + ox, e.t.y * scale + oy);
      }
      ctx.strokeStyle = COLORS[look];
      ctx.lineWidth = WIDE[look] || (nodes.size > 300 ? 1 : 2);
      ctx.setLineDash(DASH[look] || []);
      ctx.stroke();
    }
    ctx.setLineDash([]);
    // Switches: one path per state.
    for (const cls of ['up', 'down']) {
      ctx.beginPath();
      for (const n of nodes.values()) {
        if (n.cls.split(' ')[0] !== cls) continue;
        const x = n.x * scale + ox, y = n.y * scale + oy;
        ctx.moveTo(x + NODE_R, y);
        ctx.arc(x, y, NODE_R, 0, 2 * Math.PI);
      }
      ctx.fillStyle = cls === 'up' ? COLORS.nodeUp : COLORS.nodeDown;
      ctx.fill();
    }
    // A circuit's ends: a ring each.
    ctx.beginPath();
    for (const n of nodes.values()) {
      if (!n.cls.includes(' end')) continue;
      const x = n.x * scale + ox, y = n.y * scale + oy;
      ctx.moveTo(x + NODE_R + 3, y);
      ctx.arc(x, y, NODE_R + 3, 0, 2 * Math.PI);
    }
    ctx.strokeStyle = COLORS.end;
    ctx.lineWidth = 2;
    ctx.stroke();
    const sel = nodes.get(selected);
    if (sel) {
      ctx.beginPath();
      ctx.arc(sel.x * scale + ox, sel.y * scale + oy, NODE_R + 3, 0, 2 * Math.PI);
      ctx.strokeStyle = COLORS.selected;
      ctx.lineWidth = 3;
      ctx.stroke();
    }
    if (nodes.size <= 100) {
      ctx.fillStyle = COLORS.label;
      ctx.font = '11px system-ui, sans-serif';
      ctx.textAlign = 'center';
      for (const n of nodes.values()) ctx.fillText(n.label || '', n.x * scale + ox, n.y * scale + oy - NODE_R - 4);
    }
    for (const done of drawn.splice(0)) done();
  }

  // ---- picking ----
  function nodeAt(sx, sy) {
    let best = null, bestD = (NODE_R + 3) ** 2;
    for (const n of nodes.values()) {
      const dx = n.x * scale + ox - sx, dy = n.y * scale + oy - sy, d = dx * dx + dy * dy;
      if (d <= bestD) { best = n; bestD = d; }
    }
    return best;
  }

  function edgeAt(sx, sy) {
    let best = null, bestD = HIT_EDGE ** 2;
    for (const e of edges.values()) {
      const ax = e.s.x * scale + ox, ay = e.s.y * scale + oy;
      const bx = e.t.x * scale + ox, by = e.t.y * scale + oy;
      const vx = bx - ax, vy = by - ay, len = vx * vx + vy * vy;
      const k = len ? Math.max(0, Math.min(1, ((sx - ax) * vx + (sy - ay) * vy) / len)) : 0;
      const dx = ax + k * vx - sx, dy = ay + k * vy - sy, d = dx * dx + dy * dy;
      if (d <= bestD) { best = e; bestD = d; }
    }
    return best;
  }

  // ---- pointer: pan, drag a switch, click ----
  let press = null;
  function local(ev) {
    const r = canvas.getBoundingClientRect();
    return [ev.clientX - r.left, ev.clientY - r.top];
  }
  canvas.addEventListener('pointerdown', (ev) => {
    const [x, y] = local(ev);
    const n = nodeAt(x, y);
    press = { x, y, n, ox, oy, nx: n ? n.x : 0, ny: n ? n.y : 0, moved: false };
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (!press) return;
    const [x, y] = local(ev);
    if (!press.moved && Math.hypot(x - press.x, y - press.y) < CLICK_SLOP) return;
    press.moved = true;
    if (press.n) {
      press.n.x = press.nx + (x - press.x) / scale;
      press.n.y = press.ny + (y - press.y) / scale;
    } else {
      ox = press.ox + x - press.x;
      oy = press.oy + y - press.y;
    }
    redraw();
  });
  canvas.addEventListener('pointerup', (ev) => {
    if (!press) return;
    const p = press;
    press = null;
    if (p.moved) {
      if (p.n && handlers.onMoved) handlers.onMoved(p.n.id, { x: p.n.x, y: p.n.y });
      return;
    }
    const [x, y] = local(ev);
    const n = nodeAt(x, y);
    const e = n ? null : edgeAt(x, y);
    api.select(n ? n.id : e ? e.id : null);
    if (n && handlers.onTapNode) handlers.onTapNode(n.id);
    else if (e && handlers.onTapEdge) handlers.onTapEdge(e.id);
  });
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const [x, y] = local(ev);
    zoomAt(x, y, Math.exp(-ev.deltaY * 0.0015));
  }, { passive: false });

  // The keyboard, on the focused graph: arrows pan, + and - zoom, 0 fits.
  function zoomAt(x, y, f) {
    const next = Math.min(20, Math.max(0.02, scale * f));
    ox = x - ((x - ox) * next) / scale;
    oy = y - ((y - oy) * next) / scale;
    scale = next;
    redraw();
  }
  container.addEventListener('keydown', (ev) => {
    const pan = { ArrowLeft: [40, 0], ArrowRight: [-40, 0], ArrowUp: [0, 40], ArrowDown: [0, -40] }[ev.key];
    if (pan) {
      ox += pan[0];
      oy += pan[1];
      redraw();
    } else if (ev.key === '+' || ev.key === '=') {
      zoomAt(width / 2, height / 2, 1.25);
    } else if (ev.key === '-') {
      zoomAt(width / 2, height / 2, 0.8);
    } else if (ev.key === '0') {
      api.fit();
    } else {
      return;
    }
    ev.preventDefault();
  });

  function link(e) {
    const s = nodes.get(e.source), t = nodes.get(e.target);
    return s && t ? { id: e.id, s, t, cls: e.cls || 'up' } : null;
  }

  const api = {
    set(ns, es) {
      nodes.clear();
      edges.clear();
      for (const n of ns) nodes.set(n.id, { id: n.id, x: n.x, y: n.y, cls: n.cls || 'up', label: n.label });
      for (const e of es) {
        const l = link(e);
        if (l) edges.set(l.id, l);
      }
      resize();
      api.fit();
    },
    addNode(n) { nodes.set(n.id, { id: n.id, x: n.x, y: n.y, cls: n.cls || 'up', label: n.label }); redraw(); },
    addEdge(e) { const l = link(e); if (l) edges.set(l.id, l); redraw(); },
    remove(keep) {
      for (const id of [...edges.keys()]) if (!keep.has(id)) edges.delete(id);
      for (const id of [...nodes.keys()]) if (!keep.has(id)) nodes.delete(id);
      for (const [id, e] of edges) if (!nodes.has(e.s.id) || !nodes.has(e.t.id)) edges.delete(id);
      redraw();
    },
    hasNode: (id) => nodes.has(id),
    hasEdge: (id) => edges.has(id),
    nodeClass(id, cls) {
      const n = nodes.get(id);
      if (cls === undefined) return n ? n.cls : null;
      if (n && n.cls !== cls) { n.cls = cls; redraw(); }
      return cls;
    },
    edgeClass(id, cls) {
      const e = edges.get(id);
      if (cls === undefined) return e ? e.cls : null;
      if (e && e.cls !== cls) { e.cls = cls; redraw(); }
      return cls;
    },
    // The colour a link is drawn in now (what the user sees).
    edgeColor(id) {
      const e = edges.get(id);
      return e ? COLORS[edgeStyle(e)] : null;
    },
    counts: () => [nodes.size, edges.size],
    colors: COLORS,
    // The colour on the screen at (x, y) px: [r, g, b].
    pixel(x, y) {
      return [...ctx.getImageData(Math.round(x * ratio), Math.round(y * ratio), 1, 1).data.slice(0, 3)];
    },
    position(id) { const n = nodes.get(id); return n ? { x: n.x, y: n.y } : null; },
    renderedPosition(id) { const n = nodes.get(id); return n ? { x: n.x * scale + ox, y: n.y * scale + oy } : null; },
    nodeIds: () => [...nodes.keys()],
    size: () => [width, height],
    nodesNear(x, y, r) {
      return [...nodes.values()].filter((n) => Math.hypot(n.x * scale + ox - x, n.y * scale + oy - y) <= r).map((n) => n.id);
    },
    extent() {
      return { x1: -ox / scale, y1: -oy / scale, w: width / scale, h: height / scale };
    },
    fit(pad = 20) {
      if (!nodes.size) return;
      let x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity;
      for (const n of nodes.values()) {
        x1 = Math.min(x1, n.x); y1 = Math.min(y1, n.y); x2 = Math.max(x2, n.x); y2 = Math.max(y2, n.y);
      }
      const w = Math.max(x2 - x1, 1), h = Math.max(y2 - y1, 1);
      scale = Math.min((width - 2 * pad) / w, (height - 2 * pad) / h, 2);
      ox = (width - w * scale) / 2 - x1 * scale;
      oy = (height - h * scale) / 2 - y1 * scale;
      redraw();
    },
    select(id) {
      if (selected !== id) { selected = id; redraw(); }
    },
    // Resolves once what was asked so far is on the screen.
    drawn() {
      return new Promise((resolve) => {
        drawn.push(resolve);
        redraw();
      });
    },
    destroy() {
      ro.disconnect();
      cancelAnimationFrame(frame);
      canvas.remove();
      delete container.ofcdGraph;
    },
  };
  container.ofcdGraph = api;
  return api;
}
