// The dashboard on the shipped configuration (tests/integration/ui_browser.sh,
// part "defaults"): the topology app on, no cluster, two emulated switches
// (no links between them). Every page works; the topology's own controls
// are there; the LLDP flow each switch gets is listed with its flows.
const { test, expect } = require('./fixtures');

test('switches: listed, each with the topology\'s Disable button', async ({ page }) => {
  await page.goto('/ui/#/switches');
  await expect(page.locator('[data-test=switch-row]')).toHaveCount(2);
  await expect(page.locator('[data-test=switches-error]')).toHaveText('');
  await expect(page.locator('[data-test=switch-disable]')).toHaveCount(2);
});

test('a switch: its ports with Disable buttons, its LLDP flow among its flows', async ({ page }) => {
  await page.goto('/ui/#/switches');
  await page.locator('[data-test=switch-link]').first().click();
  await expect(page.locator('[data-test=switch-state]')).toHaveText('connected');
  await expect(page.locator('[data-test=port-disable]').first()).toBeVisible();
  await expect(page.locator('[data-test=flow-row]').filter({ hasText: '50000' })).toHaveCount(1);
});

test('topology: the graph drawn, no error', async ({ page }) => {
  await page.goto('/ui/#/topology');
  await expect(page.locator('[data-test=topology-graph]')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('[data-test=topology-error]')).toHaveText('');
});

test('cluster: a lone node, named by the key that makes a cluster', async ({ page }) => {
  await page.goto('/ui/#/cluster');
  await expect(page.locator('[data-test=cluster-alone]')).toHaveText('this ofcd runs alone (cluster.etcd_endpoints is empty)');
});
