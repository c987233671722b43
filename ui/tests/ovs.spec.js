// The dashboard against ofcd and a ring of 6 Open vSwitch bridges
// (tests/integration/ui_browser.sh): one story, in order, as an operator
// would go through it.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const { test, expect, shot, vsctl, dumpFlows, dpid, graph } = require('./fixtures');

const N = 6;
test.describe.configure({ mode: 'serial' });

// The link between bridge i's port 1 and bridge i+1's port 2 (the ring).
const ringLink = (i) => [`${dpid(i)}:1`, `${dpid(i % N + 1)}:2`];
const linkRow = (page, i) => page.locator('[data-test=link-row]').filter({ hasText: ringLink(i)[0] })
  .filter({ hasText: ringLink(i)[1] });

test('overview: the right counts', async ({ page }) => {
  await page.goto('/ui/');
  await expect(page.locator('[data-test=stream-state]')).toHaveText('live');
  await expect(page.locator('[data-test=count-switches-up]')).toHaveText(String(N));
  await expect(page.locator('[data-test=count-switches-down]')).toHaveText('0');
  await expect(page.locator('[data-test=count-links-up]')).toHaveText(String(N));
  await expect(page.locator('[data-test=count-links-down]')).toHaveText('0');
  // One LLDP flow per bridge, stored and installed by the topology app.
  await expect(page.locator('[data-test=count-flows-installed]')).toHaveText(String(N));
  await expect(page.locator('[data-test=count-flows-error]')).toHaveText('0');
  await shot(page, 'overview');
});

test('a lost event stream is said on the page and comes back by itself', async ({ page }) => {
  await page.goto('/ui/');
  const state = page.locator('[data-test=stream-state]');
  await expect(state).toHaveText('live');
  // Everything the header says from now on.
  await state.evaluate((el) => {
    window.streamTexts = [];
    new MutationObserver(() => window.streamTexts.push(el.textContent))
      .observe(el, { childList: true, characterData: true, subtree: true });
  });
  // The kernel cuts every connection to the REST port (the stream's among
  // them; only those: ss -K without a filter would cut every socket); the
  // browser may say so in its console.
  page.allowConsole.push(/net::ERR_/);
  execFileSync('ss', ['-K', 'dst', '127.0.0.1', 'dport', '=', ':8181']);
  await expect.poll(() => page.evaluate(() => window.streamTexts)).toContain('stream lost: reconnecting…');
  await expect(state).toHaveText('live');
  // And it follows events again: a bridge that goes is counted down.
  vsctl('del-controller', 'br6');
  await expect(page.locator('[data-test=count-switches-down]')).toHaveText('1');
  vsctl('set-controller', 'br6', 'tcp:10.66.0.2:6653');
  await expect(page.locator('[data-test=count-switches-down]')).toHaveText('0', { timeout: 20000 });
});

// pcapng's first block, its type read either way round: 0x0A0D0D0A.
const PCAPNG_MAGIC = 0x0a0d0d0a;
async function downloaded(page, click) {
  const [dl] = await Promise.all([page.waitForEvent('download'), click()]);
  const buf = fs.readFileSync(await dl.path());
  expect(buf.readUInt32LE(0)).toBe(PCAPNG_MAGIC);
  // tshark, an independent decoder, reads OpenFlow 1.3 from it.
  const frames = execFileSync('tshark', ['-r', await dl.path(), '-Y', 'openflow_v4'], { encoding: 'utf8' });
  expect(frames.trim().split('\n').length).toBeGreaterThan(3);
  return dl.suggestedFilename();
}

test('switch page: the flight record, live and the copy frozen when the bridge went', async ({ page }) => {
  // br6 lost its controller in the stream test above: a copy was frozen then.
  await page.goto(`/ui/#/switch/${dpid(6)}`);
  const plain = dpid(6).replaceAll(':', '');
  const row = page.locator('[data-test=capture-row]')
    .filter({ has: page.locator('[data-test=capture-kind]', { hasText: 'disconnect' }) }).first();
  await expect(row).toBeVisible();
  await expect(row).toContainText('its connection ended');
  const id = await row.getAttribute('data-key');
  expect(await downloaded(page, () => row.locator('[data-test=capture-download]').click()))
    .toBe(`ofcd-${plain}-${id}.pcapng`);
  expect(await downloaded(page, () => page.click('[data-test=capture-live]'))).toBe(`ofcd-${plain}.pcapng`);
  await expect(page.locator('[data-test=capture-error]')).toHaveText('');
  await shot(page, 'switch-capture');
});

test('topology: every link, drawn up', async ({ page }) => {
  await page.goto('/ui/#/topology');
  await expect(page.locator('[data-test=topology-graph]')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('[data-test=link-row]')).toHaveCount(N);
  for (let i = 1; i <= N; i++) await expect(linkRow(page, i).locator('[data-test=link-state]')).toHaveText('up');
  const drawn = await graph(page, 'return g.counts()');
  expect(drawn).toEqual([N, N]);
  // A link's details: both ends' ports with their traffic (the LLDP frames).
  await linkRow(page, 1).click();
  await expect(page.locator('[data-test=detail-port]')).toHaveCount(2);
  await expect(page.locator('[data-test=detail-port]').first()).toContainText(/tx [1-9]\d* pkts/);
  await shot(page, 'topology');
});

test('topology: a stopped bridge and a deleted patch port go red without reload', async ({ page }) => {
  await page.goto('/ui/#/topology');
  await expect(page.locator('[data-test=topology-graph]')).toHaveAttribute('data-ready', 'true');
  // Bridge 3 loses its controller: it is down at once, its two links within link_timeout_s.
  vsctl('del-controller', 'br3');
  const d3 = dpid(3);
  await expect.poll(() => graph(page, `return g.nodeClass('${d3}')`)).toBe('down');
  await expect(linkRow(page, 2).locator('[data-test=link-state]')).toHaveText('down');
  await expect(linkRow(page, 3).locator('[data-test=link-state]')).toHaveText('down');
  // The patch port between bridges 5 and 6 goes: that link goes down too.
  vsctl('del-port', 'br5', 'p5-6');
  await expect(linkRow(page, 5).locator('[data-test=link-state]')).toHaveText('down');
  // Red on the screen: the pixel halfway along each link.
  const midpoint = `const a = g.renderedPosition(arg[0]), b = g.renderedPosition(arg[1]);
    return g.drawn().then(() => g.pixel((a.x + b.x) / 2, (a.y + b.y) / 2))`;
  for (const i of [2, 5]) {
    const [r, gr, b] = await graph(page, midpoint, ringLink(i).map((e) => e.split(':').slice(0, 8).join(':')));
    expect(r > 180 && gr < 120 && b < 120, `link ${i} drawn red, not rgb(${r},${gr},${b})`).toBe(true);
  }
  const [r1, g1] = await graph(page, midpoint, ringLink(1).map((e) => e.split(':').slice(0, 8).join(':')));
  expect(g1 > r1, 'link 1 still drawn green').toBe(true);
  await expect(linkRow(page, 1).locator('[data-test=link-state]')).toHaveText('up');
  await shot(page, 'topology-down');
  // Back as they were for the tests after.
  vsctl('set-controller', 'br3', 'tcp:10.66.0.2:6653');
  vsctl('add-port', 'br5', 'p5-6', '--', 'set', 'interface', 'p5-6', 'type=patch', 'options:peer=p6-5',
    'ofport_request=1');
  for (let i = 1; i <= N; i++)
    await expect(linkRow(page, i).locator('[data-test=link-state]')).toHaveText('up', { timeout: 30000 });
});

test('flows: added from the form, installed, shown on its switch and on the bridge', async ({ page }) => {
  await page.goto('/ui/#/flows');
  await page.fill('[data-test=add-switch]', dpid(2));
  await page.fill('[data-test=add-priority]', '1234');
  // A cookie above 2^53: a browser's numbers would round it.
  await page.fill('[data-test=add-cookie]', '0xfe0000000000a2b3');
  await page.fill('[data-test=add-match]', '{"in_port": 1}');
  await page.fill('[data-test=add-actions]', '[{"action_type": "output", "port": 2}]');
  await page.click('[data-test=add-submit]');
  await expect(page.locator('[data-test=add-result]')).toContainText('Stored');
  await expect.poll(() => dumpFlows('br2'), { timeout: 15000 }).toContain('priority=1234,in_port=1 actions=output:2');
  expect(dumpFlows('br2')).toContain('cookie=0xfe0000000000a2b3');
  await page.goto(`/ui/#/switch/${dpid(2)}`);
  const row = page.locator('[data-test=flow-row]').filter({ hasText: '1234' });
  await expect(row.locator('[data-test=flow-state]')).toHaveText('installed');
  // Its ports' counters, from the statistics polls: LLDP goes out of port 1.
  const port1 = page.locator('[data-test=port-row]').filter({ has: page.locator('[data-test=cell-port_no]', { hasText: /^1$/ }) });
  await expect.poll(async () => Number(await port1.locator('[data-test=cell-tx_packets]').textContent())).toBeGreaterThan(0);
  // A counter the bridge does not keep (OVS sends all ones) is null, never a number.
  const sw = await (await page.request.get(`/api/v1/switches/${dpid(2)}`)).json();
  for (const p of sw.ports)
    for (const [k, v] of Object.entries(p.counters || {})) expect(v === null || v >= 0, `${p.name} ${k} = ${v}`).toBe(true);
  await expect(port1.locator('[data-test=cell-drops]')).not.toContainText('-');
  await shot(page, 'switch');
});

test('flows: a malformed flow shows the API message next to its field', async ({ page }) => {
  page.allowConsole.push(/status of 400/);   // the browser's own line for the refused POSTs
  await page.goto('/ui/#/flows');
  await page.fill('[data-test=add-switch]', dpid(2));
  await page.fill('[data-test=add-priority]', '70000');
  await page.click('[data-test=add-submit]');
  await expect(page.locator('[data-test=error-priority]')).toContainText("'priority'");
  await page.fill('[data-test=add-priority]', '10');
  await page.fill('[data-test=add-match]', '{"in_port": "one"}');
  await page.click('[data-test=add-submit]');
  await expect(page.locator('[data-test=error-match]')).toContainText('in_port');
  await expect(page.locator('[data-test=error-priority]')).toBeEmpty();
  await shot(page, 'flows-error');
});

test('flows: deleted after a confirmation', async ({ page }) => {
  await page.goto('/ui/#/flows');
  await page.fill('[data-test=search-dpid]', dpid(2));
  await page.click('[data-test=search-submit]');
  const row = page.locator('[data-test=flow-row]').filter({ hasText: '1234' });
  await expect(row).toHaveCount(1);
  await shot(page, 'flows');
  await row.locator('[data-test=flow-delete]').click();
  // Cancel first: nothing changes.
  await page.click('[data-test=confirm-no]');
  await expect(row.locator('[data-test=flow-state]')).toHaveText('installed');
  await row.locator('[data-test=flow-delete]').click();
  await page.click('[data-test=confirm-yes]');
  await expect.poll(() => dumpFlows('br2'), { timeout: 15000 }).not.toContain('priority=1234');
  await expect(page.locator('[data-test=flow-row]').filter({ hasText: '1234' })
    .locator('[data-test=flow-state]')).toHaveText('deleted');
});

test('switch page: disabling an interface stops its link', async ({ page }) => {
  await page.goto(`/ui/#/switch/${dpid(4)}`);
  const port = page.locator('[data-test=port-row]').filter({ has: page.locator('[data-test=cell-port_no]', { hasText: /^1$/ }) });
  await port.locator('[data-test=port-disable]').click();
  await page.click('[data-test=confirm-yes]');
  await expect(port.locator('[data-test=port-enable]')).toBeVisible();
  await page.goto('/ui/#/topology');
  await expect(linkRow(page, 4).locator('[data-test=link-state]')).toHaveText('down', { timeout: 15000 });
  await page.goto(`/ui/#/switch/${dpid(4)}`);
  await port.locator('[data-test=port-enable]').click();
  await page.click('[data-test=confirm-yes]');
  await page.goto('/ui/#/topology');
  await expect(linkRow(page, 4).locator('[data-test=link-state]')).toHaveText('up', { timeout: 30000 });
});

test('switches: sorted, filtered, disabled and enabled after a confirmation', async ({ page }) => {
  await page.goto('/ui/#/switches');
  await expect(page.locator('[data-test=switch-row]')).toHaveCount(N);
  await page.fill('[data-test=switch-filter]', '10:0' + '5'.toUpperCase());
  await expect(page.locator('[data-test=switch-row]')).toHaveCount(1);
  await page.fill('[data-test=switch-filter]', 'OPEN VSWITCH');     // case-insensitive
  await expect(page.locator('[data-test=switch-row]')).toHaveCount(N);
  await page.fill('[data-test=switch-filter]', '');
  await page.click('[data-test=sort-dpid]');                          // descending
  await expect(page.locator('[data-test=switch-row]').first()).toHaveAttribute('data-key', dpid(N));
  const row = page.locator(`[data-test=switch-row][data-key="${dpid(6)}"]`);
  await row.locator('[data-test=switch-disable]').click();
  await page.click('[data-test=confirm-yes]');
  await expect(row.locator('[data-test=switch-enable]')).toBeVisible();
  const s = await (await page.request.get(`/api/kytos/topology/v3/switches`)).json();
  expect(s.switches[dpid(6)].enabled).toBe(false);
  await shot(page, 'switches');
  await row.locator('[data-test=switch-enable]').click();
  await page.click('[data-test=confirm-yes]');
  await expect(row.locator('[data-test=switch-disable]')).toBeVisible();
});

test('topology: a dragged switch stays where it was put over a reload', async ({ page }) => {
  await page.goto('/ui/#/topology');
  const canvas = page.locator('[data-test=topology-graph]');
  await expect(canvas).toHaveAttribute('data-ready', 'true');
  const d1 = dpid(1);
  const box = await canvas.boundingBox();
  const at = await graph(page, `const p = g.renderedPosition('${d1}'); return [p.x, p.y]`);
  await page.mouse.move(box.x + at[0], box.y + at[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + at[0] + 60, box.y + at[1] + 40, { steps: 8 });
  await page.mouse.up();
  await expect(canvas).toHaveAttribute('data-saved', '1');
  const moved = await graph(page, `const p = g.position('${d1}'); return [Math.round(p.x), Math.round(p.y)]`);
  await page.reload();
  await expect(page.locator('[data-test=topology-graph]')).toHaveAttribute('data-ready', 'true');
  const after = await graph(page, `const p = g.position('${d1}'); return [Math.round(p.x), Math.round(p.y)]`);
  expect(after).toEqual(moved);
  // For auth.spec.js: the same place after ofcd restarts.
  require('node:fs').writeFileSync(`${process.env.UI_WORK}/position.json`, JSON.stringify({ dpid: d1, at: moved }));
});

test('events: live, filtered by kind; every page without console errors', async ({ page }) => {
  await page.goto('/ui/#/events');
  await expect(page.locator('[data-test=stream-state]')).toHaveText('live');
  vsctl('del-controller', 'br6');
  await expect(page.locator('[data-test=event-row][data-kind="switch.down"]')).not.toHaveCount(0);
  vsctl('set-controller', 'br6', 'tcp:10.66.0.2:6653');
  await expect(page.locator('[data-test=event-row][data-kind="switch.up"]')).not.toHaveCount(0);
  await page.selectOption('[data-test=event-kind]', 'switch');
  for (const li of await page.locator('[data-test=event-row]:visible').all())
    expect(await li.getAttribute('data-kind')).toMatch(/^switch\./);
  await shot(page, 'events');
  await page.goto('/ui/#/cluster');
  await expect(page.locator('[data-test=cluster-alone]')).toBeVisible();
  await shot(page, 'cluster');
  // A phone's screen: the pages still fit.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const p of ['overview', 'topology', 'switches', 'flows']) {
    await page.goto(`/ui/#/${p}`);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `${p} is wider than the phone`).toBeLessThanOrEqual(390 + 1);
  }
  await shot(page, 'phone-overview');
});

test('keyboard: the pages are reached and tables sorted without a mouse', async ({ page }) => {
  await page.goto('/ui/#/overview');
  await expect(page.locator('[data-test=count-switches-up]')).toHaveText(String(N));
  // Tab from the start of the page to the Switches link (the header comes first).
  await page.locator('body').focus();
  let reached = false;
  for (let i = 0; i < 12 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.dataset.test === 'nav-switches');
  }
  expect(reached, 'Tab reaches the Switches link').toBe(true);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#\/switches$/);
  await page.locator('[data-test=sort-ports]').focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('[data-test=sort-ports]')).toHaveAttribute('aria-sort', 'ascending');
});

// The topology's ids of the ring's links 1..N (ringLink order).
async function ringLinkIds(request) {
  const links = (await (await request.get('/api/v1/topology')).json()).links;
  return [...Array(N).keys()].map((k) => {
    const [a, b] = ringLink(k + 1);
    const l = links.find((x) => (x.a === a && x.b === b) || (x.a === b && x.b === a));
    expect(l, `ring link ${k + 1} in the topology`).toBeTruthy();
    return l.id;
  });
}

test('circuits: an EVC shows active with its path and backup, drawn on the topology, moves when its link goes, leaves when deleted', async ({ page, request }) => {
  // LLDP finds a link again within seconds, twice here.
  test.setTimeout(120000);
  const EL = '/api/kytos/mef_eline/v2/evc/';
  const TOPO = '/api/kytos/topology/v3';
  // Links the tests before disabled with their switch or interface stay
  // disabled (as in Kytos): enabled again, the ring is whole for paths.
  const links = (await (await request.get(`${TOPO}/links`)).json()).links;
  for (const [id, l] of Object.entries(links))
    if (!l.enabled) expect((await request.post(`${TOPO}/links/${id}/enable`)).status()).toBe(201);
  await expect.poll(async () => Object.values((await (await request.get(`${TOPO}/links`)).json()).links)
    .filter((l) => l.status === 'UP').length).toBe(N);
  const made = await request.post(EL, { data: {
    name: 'ui-evc', enabled: true, dynamic_backup_path: true,
    uni_a: { interface_id: `${dpid(1)}:7`, tag: { tag_type: 'vlan', value: 100 } },
    uni_z: { interface_id: `${dpid(3)}:7`, tag: { tag_type: 'vlan', value: 200 } } } });
  expect(made.status()).toBe(201);
  const id = (await made.json()).circuit_id;
  let cut = false;
  const uncut = () => vsctl('add-port', 'br2', 'p2-3', '--', 'set', 'interface', 'p2-3', 'type=patch',
    'options:peer=p3-2', 'ofport_request=1');
  try {
    await page.goto('/ui/#/circuits');
    const row = page.locator('[data-test=evc-row]').filter({ hasText: id });
    await expect(row.locator('[data-test=evc-name]')).toHaveText('ui-evc');
    await expect(row.locator('[data-test=evc-state]')).toHaveText('active');
    // The short way round the ring, backed up by the long way.
    await expect(row.locator('[data-test=evc-path]')).toHaveText(`${dpid(1)} → ${dpid(2)} → ${dpid(3)}`);
    await expect(row.locator('[data-test=evc-backup]')).toHaveText(
      `${dpid(1)} → ${dpid(6)} → ${dpid(5)} → ${dpid(4)} → ${dpid(3)}`);
    await expect(row).toContainText('VLAN 100');
    // Drawn on the topology: the path's two links purple, the backup's four
    // dashed amber, both ends ringed (the only EVC: picked at once).
    const cg = page.locator('[data-test=circuit-graph]');
    await expect(cg).toHaveAttribute('data-ready', 'true');
    await expect(cg).toHaveAttribute('data-circuit', id);
    await expect(page.locator('[data-test=circuit-caption]')).toHaveText(
      'ui-evc: its path, 2 links, in purple; its backup, 4 links, dashed amber; its ends ringed.');
    const ringIds = await ringLinkIds(request);
    const colours = () => graph(page, 'return arg.map((id) => g.edgeColor(id))', ringIds, 'circuit-graph');
    const { path: P, backup: B, up: U, down: D } = await graph(page, 'return g.colors', null, 'circuit-graph');
    await expect.poll(colours).toEqual([P, P, B, B, B, B]);
    expect(await graph(page, `return [1, 2, 3].map((i) => g.nodeClass(arg[i - 1]))`,
      [dpid(1), dpid(2), dpid(3)], 'circuit-graph')).toEqual(['up end', 'up', 'up end']);
    // On the screen: the pixel halfway along link 1 is the path's purple.
    const [r, gr, b] = await graph(page, `const a = g.renderedPosition(arg[0]), b = g.renderedPosition(arg[1]);
      return g.drawn().then(() => g.pixel((a.x + b.x) / 2, (a.y + b.y) / 2))`, [dpid(1), dpid(2)], 'circuit-graph');
    expect(b > 150 && gr < 100 && r < 150, `link 1 drawn purple, not rgb(${r},${gr},${b})`).toBe(true);
    await shot(page, 'circuits');
    // A phone's screen: the page still fits, the graph under the table.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390 + 1);
    await expect(cg).toBeVisible();
    await shot(page, 'phone-circuits');
    await page.setViewportSize({ width: 1280, height: 720 });
    // The address names the picked EVC: opened from it, the same one is drawn.
    await page.goto('/ui/#/overview');
    await page.goto(`/ui/#/circuits/${id}`);
    await expect(cg).toHaveAttribute('data-circuit', id);
    await row.click();
    await expect(page).toHaveURL(new RegExp(`#/circuits/${id}$`));
    await expect(row).toHaveAttribute('aria-selected', 'true');
    // The link between bridges 2 and 3 goes: the page shows the EVC moved the long way, without reload.
    vsctl('del-port', 'br2', 'p2-3');
    cut = true;
    await expect(row.locator('[data-test=evc-path]')).toHaveText(
      `${dpid(1)} → ${dpid(6)} → ${dpid(5)} → ${dpid(4)} → ${dpid(3)}`);
    await expect(row.locator('[data-test=evc-backup]')).toHaveText('none');
    // Drawn moved: the long way purple, link 1 plain up, link 2 down (red).
    await expect.poll(colours).toEqual([U, D, P, P, P, P]);
    await expect(page.locator('[data-test=circuit-caption]')).toHaveText(
      'ui-evc: its path, 4 links, in purple; no backup; its ends ringed.');
    uncut();
    cut = false;
    // Back the short way, protected again, by itself.
    await expect(row.locator('[data-test=evc-path]')).toHaveText(`${dpid(1)} → ${dpid(2)} → ${dpid(3)}`,
      { timeout: 30000 });
    expect((await request.delete(EL + id)).status()).toBe(200);
    await expect(page.locator('[data-test=evc-row]').filter({ hasText: id })).toHaveCount(0);
  } finally {
    // Whatever failed, the ring and no EVC for the auth part after.
    if (cut) uncut();
    await request.delete(EL + id);
  }
  await page.goto('/ui/#/topology');
  for (let i = 1; i <= N; i++)
    await expect(linkRow(page, i).locator('[data-test=link-state]')).toHaveText('up', { timeout: 30000 });
});
