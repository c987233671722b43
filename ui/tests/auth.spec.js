// The dashboard with rest.auth on (tests/integration/ui_browser.sh restarts
// ofcd with it, user "ops", and exports the token key and users file).
const { test, expect, shot, graph } = require('./fixtures');
const crypto = require('node:crypto');
const fs = require('node:fs');

test.describe.configure({ mode: 'serial' });

// A token as ofcd signs them (rest_jwt.h), expired seconds ago: the key is
// the running ofcd's, so only its age is wrong.
function expiredToken(user) {
  const key = fs.readFileSync(process.env.UI_JWT_KEY);
  const users = JSON.parse(fs.readFileSync(process.env.UI_USERS, 'utf8')).users;
  const epoch = users.find((u) => u.username === user).epoch;
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const head = b64({ alg: 'HS256', typ: 'JWT' });
  const body = b64({ username: user, role: 'admin', iss: 'ofcd', epoch, exp: Math.floor(Date.now() / 1000) - 5 });
  const sig = crypto.createHmac('sha256', key).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

test('a wrong password says so; the right one opens the dashboard', async ({ page }) => {
  await page.goto('/ui/');
  await expect(page.locator('[data-test=login-form]')).toBeVisible();
  await shot(page, 'login');
  await page.fill('[data-test=login-user]', 'ops');
  await page.fill('[data-test=login-password]', 'not-the-password');
  page.allowConsole.push(/status of 401/);   // the refused login itself
  await page.click('[data-test=login-submit]');
  await expect(page.locator('[data-test=login-error]')).toHaveText('Wrong user or password.');
  await page.fill('[data-test=login-password]', 'dashpass1');
  await page.click('[data-test=login-submit]');
  await expect(page.locator('[data-test=count-switches-up]')).toHaveText('6');
  await expect(page.locator('[data-test=stream-state]')).toHaveText('live');
});

test('an expired token sends the user back to the login, then to the page', async ({ page }) => {
  // A user back with a token kept from an earlier visit, now expired.
  await page.addInitScript((t) => localStorage.setItem('ofcd.token', t), expiredToken('ops'));
  page.allowConsole.push(/status of 401/);   // the API's answers to the expired token
  await page.goto('/ui/#/switches');
  await expect(page.locator('[data-test=login-reason]')).toContainText('expired');
  await page.fill('[data-test=login-user]', 'ops');
  await page.fill('[data-test=login-password]', 'dashpass1');
  await page.click('[data-test=login-submit]');
  await expect(page).toHaveURL(/#\/switches$/);
  await expect(page.locator('[data-test=switch-row]')).toHaveCount(6);
});

test('a dragged position is kept over a restart of ofcd', async ({ page }) => {
  const saved = JSON.parse(fs.readFileSync(`${process.env.UI_WORK}/position.json`, 'utf8'));
  await page.goto('/ui/');
  await page.fill('[data-test=login-user]', 'ops');
  await page.fill('[data-test=login-password]', 'dashpass1');
  await page.click('[data-test=login-submit]');
  await expect(page.locator('[data-test=stream-state]')).toHaveText('live');
  await page.goto('/ui/#/topology');
  await expect(page.locator('[data-test=topology-graph]')).toHaveAttribute('data-ready', 'true');
  const at = await graph(page, `const p = g.position('${saved.dpid}'); return [Math.round(p.x), Math.round(p.y)]`);
  expect(at).toEqual(saved.at);
});
