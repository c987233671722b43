// Cluster: the nodes, whether this one holds its lease (quorum), and each
// switch's master (GET /api/v1/cluster; 404 when ofcd runs alone).
import { h, clear } from '../dom.js';
import { api, serverConfig } from '../api.js';
import { onEvent } from '../stream.js';
import { table } from '../table.js';

export default function cluster(el) {
  const err = h('p', { class: 'error', role: 'alert', 'data-test': 'cluster-error' });
  const facts = h('dl', { class: 'facts', 'data-test': 'cluster-facts' });
  const nodes = table({
    rowTest: 'node-row', filterTest: 'node-filter', rowKey: (n) => n.node_id,
    columns: [
      { key: 'node_id', label: 'Node', value: (n) => n.node_id + (n.self ? ' (this one)' : '') },
      { key: 'openflow', label: 'OpenFlow', value: (n) => n.card?.openflow || '' },
      { key: 'rest', label: 'REST', value: (n) => n.card?.rest || '' },
      { key: 'ttl', label: 'Lease left s', value: (n) => n.lease_ttl_left_s },
      { key: 'masters', label: 'Masters', value: (n) => n.masters },
    ],
  });
  const sw = table({
    rowTest: 'master-row', filterTest: 'master-filter', rowKey: (s) => s.dpid,
    columns: [
      { key: 'dpid', label: 'Switch', value: (s) => s.dpid, render: (s) => h('a', { href: `#/switch/${s.dpid}` }, s.dpid) },
      { key: 'master', label: 'Master', value: (s) => s.master || '' },
      { key: 'role', label: 'This node is', value: (s) => s.role },
      { key: 'channel', label: 'Channel', value: (s) => (s.channel_up ? 'up' : 'down') },
      { key: 'gen', label: 'Generation', value: (s) => s.generation_id },
      { key: 'changes', label: 'Role changes', value: (s) => s.role_changes },
    ],
  });
  el.append(h('h1', {}, 'Cluster'), err, facts, h('h2', {}, 'Nodes'), nodes.el, h('h2', {}, 'Masters'), sw.el);
  let alive = true;
  let timer = null;

  async function load() {
    timer = null;
    if (!(await serverConfig()).cluster) {
      clear(facts).append(h('dt', {}, 'cluster'), h('dd', { 'data-test': 'cluster-alone' },
        'this ofcd runs alone (cluster.etcd_endpoints is empty)'));
      return;
    }
    try {
      const c = await api('/api/v1/cluster');
      if (!alive) return;
      const count = new Map();
      for (const s of c.switches || []) if (s.master) count.set(s.master, (count.get(s.master) || 0) + 1);
      nodes.set((c.nodes || []).map((n) => ({ ...n, masters: count.get(n.node_id) || 0 })));
      sw.set(c.switches || []);
      clear(facts).append(
        h('dt', {}, 'this node'), h('dd', {}, c.node_id),
        h('dt', {}, 'quorum'), h('dd', { 'data-test': 'cluster-quorum', class: c.may_act ? 'ok' : 'bad' },
          c.may_act ? `yes (lease proved for ${c.may_act_ms} ms more)` : `no: ${c.etcd_error || 'lease not proved'}`),
        h('dt', {}, 'etcd revision'), h('dd', {}, c.revision));
      err.textContent = '';
    } catch (e) {
      if (!alive) return;
      err.textContent = e.status === 404 ? 'This ofcd runs alone (cluster.etcd_endpoints is empty).' : `Cannot read the cluster: ${e.description}`;
    }
  }
  const off = onEvent((kind) => { if (/^(switch\.|stream\.open)/.test(kind) && !timer) timer = setTimeout(load, 300); });
  const tick = setInterval(load, 5000);    // the lease's time left moves without events
  load();
  return () => { alive = false; off(); clearTimeout(timer); clearInterval(tick); };
}
