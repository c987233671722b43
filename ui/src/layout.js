// A placement for large graphs that costs O(switches + links): layers by
// hops from the best-connected switch (a fat-tree comes out core,
// aggregation, edge), each layer ordered by where its parents are, each
// component beside the last. A force-directed layout draws small graphs
// better but takes seconds at 1,000 switches and 10,000 links.
export function layered(ids, edges, { dx = 24, dy = 140 } = {}) {
  const adj = new Map(ids.map((id) => [id, []]));
  for (const [a, b] of edges) {
    if (adj.has(a) && adj.has(b)) {
      adj.get(a).push(b);
      adj.get(b).push(a);
    }
  }
  const pos = new Map();
  const seen = new Set();
  const byDegree = [...ids].sort((x, y) => adj.get(y).length - adj.get(x).length);
  let left = 0;
  for (const root of byDegree) {
    if (seen.has(root)) continue;
    // Breadth first from the root: each switch's layer and the position of
    // the parent it was reached from.
    const layers = [[root]];
    const parentX = new Map([[root, 0]]);
    seen.add(root);
    for (let d = 0; layers[d].length; d++) {
      const next = [];
      layers[d].forEach((id, i) => {
        for (const n of adj.get(id)) {
          if (seen.has(n)) continue;
          seen.add(n);
          parentX.set(n, i);
          next.push(n);
        }
      });
      next.sort((x, y) => parentX.get(x) - parentX.get(y));
      layers.push(next);
    }
    const width = Math.max(...layers.map((l) => l.length));
    // Layers far apart enough that the whole is about as tall as a screen
    // is for its width (a wide layer otherwise draws as a flat band).
    const step = Math.max(dy, (width * dx) / (1.6 * Math.max(1, layers.length - 1)));
    layers.forEach((layer, d) => {
      const offset = left + ((width - layer.length) * dx) / 2;
      layer.forEach((id, i) => pos.set(id, { x: offset + i * dx, y: d * step }));
    });
    left += (width + 2) * dx;
  }
  return pos;
}
