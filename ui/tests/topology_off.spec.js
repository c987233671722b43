// The dashboard with the topology app turned off (tests/integration/ui_browser.sh,
// part "topology-off": apps.topology and apps.mef_eline = false, two emulated
// switches). No page
// asks the API for what is not there (the fixture fails on a console error,
// a 404 included), and each says what would turn it on.
const { test, expect } = require('./fixtures');

test('switches: listed, the topology\'s Enabled column shown as off', async ({ page }) => {
  await page.goto('/ui/#/switches');
  await expect(page.locator('[data-test=switch-row]')).toHaveCount(2);
  await expect(page.locator('[data-test=switches-error]')).toHaveText('');
  await expect(page.locator('[data-test=switch-enabled-off]')).toHaveCount(2);
  await expect(page.locator('[data-test=switch-enabled-off]').first()).toHaveAttribute('title', /apps\.topology = true/);
});

test('a switch: its ports, no enable button without the topology app', async ({ page }) => {
  await page.goto('/ui/#/switches');
  await page.locator('[data-test=switch-link]').first().click();
  await expect(page.locator('[data-test=switch-state]')).toHaveText('connected');
  await expect(page.locator('[data-test=port-enabled-off]').first()).toBeVisible();
  await expect(page.locator('[data-test=port-disable]')).toHaveCount(0);
});

test('topology: says the app is off and how to turn it on', async ({ page }) => {
  await page.goto('/ui/#/topology');
  await expect(page.locator('[data-test=topology-error]')).toHaveText(/topology app is off: apps\.topology = true/);
});

test('circuits: says the app is off and how to turn it on, asking nothing', async ({ page }) => {
  await page.goto('/ui/#/circuits');
  await expect(page.locator('[data-test=circuits-error]')).toHaveText(/circuits app is off \(apps\.mef_eline = true/);
  await expect(page.locator('[data-test=evc-row]')).toHaveCount(0);
});
