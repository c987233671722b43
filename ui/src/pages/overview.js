// Overview: what is up and what is not, where flows stand, and whether the
// appliance keeps up (rings, REST, echo RTT), with the last 15 minutes as
// sparklines from GET /api/v1/history. Counts follow the event stream.
import { h, bytes, num } from '../dom.js';
import { api } from '../api.js';
import { onEvent } from '../stream.js';
import { sparkline } from '../spark.js';

const cards = [
  { key: 'switches_up', label: 'Switches up', test: 'count-switches-up' },
  { key: 'switches_down', label: 'Switches down', test: 'count-switches-down', bad: true,
    of: (s) => (s.switches_known == null ? null : s.switches_known - s.switches_up) },
  { key: 'links_up', label: 'Links up', test: 'count-links-up' },
  { key: 'links_down', label: 'Links down', test: 'count-links-down', bad: true },
  { key: 'flows_installed', label: 'Flows installed', test: 'count-flows-installed' },
  { key: 'flows_pending', label: 'Flows pending', test: 'count-flows-pending', warn: true },
  { key: 'flows_error', label: 'Flows in error', test: 'count-flows-error', bad: true },
  { key: 'store_used', label: 'Store used', test: 'count-store', fmt: (v, s) => `${bytes(v)} of ${bytes(s.store_size)}` },
  { key: 'ring_depth', label: 'Deepest ring', test: 'count-ring-depth' },
  { key: 'rest_rps', label: 'REST req/s', test: 'count-rest-rps', rate: true, fmt: (v) => num(v, 1) },
  { key: 'rest_p99_ms', label: 'REST p99 ms (≤)', test: 'count-rest-p99', rate: true, fmt: (v) => num(v, 1) },
  { key: 'echo_p50_ms', label: 'Echo RTT p50 ms (≤)', test: 'count-echo-p50', rate: true, fmt: (v) => num(v, 2) },
  { key: 'echo_p99_ms', label: 'Echo RTT p99 ms (≤)', test: 'count-echo-p99', rate: true, fmt: (v) => num(v, 2) },
];

export default function overview(el) {
  const err = h('p', { class: 'error', role: 'alert', 'data-test': 'overview-error' });
  const grid = h('div', { class: 'cards' });
  const parts = cards.map((c) => {
    const value = h('div', { class: 'value', 'data-test': c.test }, '–');
    const spark = sparkline(c.label, `spark-${c.key}`);
    grid.append(h('section', { class: 'card', 'data-test': 'card', 'aria-label': c.label },
      h('h2', {}, c.label), value, spark.el));
    return { c, value, spark };
  });
  el.append(h('h1', {}, 'Overview'), err, grid,
    h('p', { class: 'note' }, 'Sparklines: the last 15 minutes, a sample every 5 s. Rates are over each 5 s; ',
      'latencies are the upper bound of the histogram bucket the percentile falls in.'));

  let history = null;
  let alive = true;
  let pending = null;

  function value(c, s) {
    if (!s) return null;
    return c.of ? c.of(s) : s[c.key];
  }

  // The history's sample i as one object (its arrays are per field).
  function sampleAt(i) {
    return Object.fromEntries(Object.keys(history).filter((k) => Array.isArray(history[k]))
      .map((k) => [k, history[k][i]]));
  }

  function draw(nowSample) {
    const has = history && history.samples;
    const last = has ? sampleAt(history.t.length - 1) : null;
    const all = has && parts.some(({ c }) => c.of) ? history.t.map((_, i) => sampleAt(i)) : null;
    for (const { c, value: v, spark } of parts) {
      // Gauges from the moment of the request; rates from the last sample.
      const src = c.rate ? last : nowSample;
      const x = value(c, src || {});
      v.textContent = x === null || x === undefined ? '–' : c.fmt ? c.fmt(x, src) : String(x);
      v.classList.toggle('bad', !!(c.bad && x > 0));
      v.classList.toggle('warn', !!(c.warn && x > 0));
      if (has) spark.set(history.t, c.of ? all.map(c.of) : history[c.key]);
    }
  }

  async function refresh() {
    pending = null;
    try {
      const j = await api('/api/v1/history');
      if (!alive) return;
      history = j;
      err.textContent = '';
      draw(j.now);
    } catch (e) {
      if (alive) err.textContent = `Cannot read the figures: ${e.description}`;
    }
  }

  // A burst of events makes one request, not one each.
  function soon() {
    if (!pending) pending = setTimeout(refresh, 300);
  }

  const off = onEvent((kind) => {
    if (/^(switch|link|flow|stream\.open)/.test(kind)) soon();
  });
  const tick = setInterval(refresh, 5000);
  refresh();
  return () => {
    alive = false;
    off();
    clearInterval(tick);
    clearTimeout(pending);
    for (const p of parts) p.spark.destroy();
  };
}
