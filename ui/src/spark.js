// A sparkline: one series over time, drawn by uPlot on a canvas, no axes.
import uPlot from 'uplot';
import { h } from './dom.js';

export function sparkline(label, test) {
  const el = h('div', { class: 'spark', 'data-test': test, 'aria-hidden': 'true' });
  let plot = null;
  return {
    el,
    set(t, ys) {
      const xs = t.map((ms) => ms / 1000);
      const data = [xs, ys];
      if (!plot) {
        plot = new uPlot({
          width: 180, height: 36, legend: { show: false }, cursor: { show: false },
          axes: [{ show: false }, { show: false }],
          scales: { x: { time: true }, y: { range: (u, min, max) => [Math.min(0, min ?? 0), Math.max(1, (max ?? 1) * 1.1)] } },
          series: [{}, { label, stroke: '#2b6cb0', fill: 'rgba(43,108,176,0.12)', width: 1.5, spanGaps: false, points: { show: false } }],
        }, data, el);
      } else {
        plot.setData(data);
      }
    },
    destroy() { if (plot) plot.destroy(); },
  };
}
