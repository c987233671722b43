// Switches: every switch with its address, description, uptime, echo RTT,
// ports and flows by state; sortable, filtered case-insensitively; enable
// or disable (the topology's) after a confirmation.
import { h, ago, num, confirmDialog } from '../dom.js';
import { api, serverConfig } from '../api.js';
import { onEvent } from '../stream.js';
import { table } from '../table.js';

const TOPO = '/api/kytos/topology/v3';

export default function switches(el) {
  const err = h('p', { class: 'error', role: 'alert', 'data-test': 'switches-error' });
  let alive = true;
  let timer = null;
  const t = table({
    rowTest: 'switch-row', filterTest: 'switch-filter', rowKey: (s) => s.dpid,
    empty: 'no switch has connected yet',
    columns: [
      { key: 'dpid', label: 'dpid', value: (s) => s.dpid,
        render: (s) => h('a', { href: `#/switch/${s.dpid}`, 'data-test': 'switch-link' }, s.dpid) },
      { key: 'state', label: 'State', value: (s) => (s.connected ? 'up' : 'down'),
        render: (s) => h('span', { class: `state ${s.connected ? 'up' : 'down'}`, 'data-test': 'switch-state' },
          s.connected ? 'up' : 'down') },
      { key: 'address', label: 'Address', value: (s) => s.address },
      { key: 'desc', label: 'Description', value: (s) => s.desc },
      { key: 'since', label: 'Since', value: (s) => s.since, render: (s) => ago(s.since) },
      { key: 'rtt', label: 'Echo RTT ms', value: (s) => s.rtt, render: (s) => num(s.rtt, 2) },
      { key: 'ports', label: 'Ports', value: (s) => s.ports },
      { key: 'installed', label: 'Installed', value: (s) => s.flows.installed },
      { key: 'pending', label: 'Pending', value: (s) => s.flows.pending },
      { key: 'error', label: 'Error', value: (s) => s.flows.error },
      { key: 'enabled', label: 'Enabled', value: (s) => (s.enabled === null ? '' : s.enabled ? 'yes' : 'no'),
        render: (s) => (s.enabled === null
          ? h('span', { 'data-test': 'switch-enabled-off', title: 'the topology app is off (apps.topology = true)' }, '—')
          : h('button', { 'data-test': s.enabled ? 'switch-disable' : 'switch-enable',
            onclick: () => toggle(s) }, s.enabled ? 'Disable' : 'Enable')) },
    ],
  });
  el.append(h('h1', {}, 'Switches'), err, t.el);

  async function toggle(s) {
    const what = s.enabled ? 'disable' : 'enable';
    if (!(await confirmDialog(`${what[0].toUpperCase()}${what.slice(1)} switch ${s.dpid}?` +
      (s.enabled ? ' Its interfaces and links are disabled with it.' : '')))) return;
    try {
      await api(`${TOPO}/switches/${s.dpid}/${what}`, { method: 'POST' });
      load();
    } catch (e) {
      err.textContent = `Cannot ${what} ${s.dpid}: ${e.description}`;
    }
  }

  async function load() {
    timer = null;
    try {
      // Enabling a switch is the topology app's: without it, no column.
      const withTopo = (await serverConfig()).topology;
      const [sw, topo, stored] = await Promise.all([
        api('/api/v1/switches'), withTopo ? api(`${TOPO}/switches`) : null,
        api('/api/kytos/flow_manager/v2/stored_flows?state=installed&state=pending&state=error').catch(() => ({})),
      ]);
      if (!alive) return;
      const byDpid = (topo && topo.switches) || {};
      t.set(sw.switches.map((s) => {
        const k = byDpid[s.dpid] || {};
        const flows = { installed: 0, pending: 0, error: 0 };
        for (const f of stored[s.dpid] || []) if (f.state in flows) flows[f.state]++;
        return {
          dpid: s.dpid, connected: s.connected, address: k.connection || '',
          desc: [s.description.manufacturer, s.description.hardware, s.description.software].filter(Boolean).join(' · '),
          since: s.connected ? s.connected_since : s.disconnected_since,
          rtt: s.echo_rtt_ms ? s.echo_rtt_ms.average : null, ports: s.n_ports, flows,
          enabled: topo ? k.enabled !== false : null,
        };
      }));
      err.textContent = '';
    } catch (e) {
      if (alive) err.textContent = `Cannot read the switches: ${e.description}`;
    }
  }

  const off = onEvent((kind) => {
    if (/^(switch\.|flow\.|port\.|stream\.open)/.test(kind) && !timer) timer = setTimeout(load, 300);
  });
  load();
  return () => { alive = false; off(); clearTimeout(timer); };
}
