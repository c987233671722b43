// A placement for large graphs that costs O(switches + links): layers by
// hops from the leaves when there are few (a fat-tree comes out core,
// aggregation, edge from the top), else from the best-connected switch,
// each layer ordered by where its parents are, each component beside the
// last. A force-directed layout draws small graphs
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
  const degree = (id) => adj.get(id).length;
  // Layer 0: the leaves when there are few of them (a tree's edge switches,
  // which then sit at the bottom under their aggregation and core), else
  // the best-connected switch of each component.
  const least = Math.min(...ids.map(degree));
  const leaves = ids.filter((id) => degree(id) === least);
  const fromLeaves = leaves.length < ids.length / 2;
  const starts = fromLeaves ? [leaves, ...[...ids].sort((x, y) => degree(y) - degree(x)).map((id) => [id])]
    : [...ids].sort((x, y) => degree(y) - degree(x)).map((id) => [id]);
  let left = 0;
  for (const start of starts) {
    const roots = start.filter((id) => !seen.has(id));
    if (!roots.length) continue;
    // Breadth first: each switch's layer and the place of the parent it was
    // reached from (its layer is ordered by that, so links run short).
    const layers = [roots];
    const parentX = new Map(roots.map((id, i) => [id, i]));
    for (const id of roots) seen.add(id);
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
    layers.pop();
    const width = Math.max(...layers.map((l) => l.length));
    // Layers far apart enough that the whole is about as tall as a screen
    // is for its width (a wide layer otherwise draws as a flat band).
    const step = Math.max(dy, (width * dx) / (1.6 * Math.max(1, layers.length - 1)));
    const top = layers.length - 1;
    layers.forEach((layer, d) => {
      const offset = left + ((width - layer.length) * dx) / 2;
      layer.forEach((id, i) => pos.set(id, { x: offset + i * dx, y: (fromLeaves ? top - d : d) * step }));
    });
    left += (width + 2) * dx;
  }
  return pos;
}
