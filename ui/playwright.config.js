// The dashboard's browser tests (tests/integration/ui_browser.sh runs them
// against a live ofcd): Debian's Chromium, driven headless; Playwright's
// own browser download is never used (no internet at run time).
const { defineConfig } = require('@playwright/test');

module.exports = defineConfig({
  testDir: 'tests',
  workers: 1,
  retries: 0,
  timeout: 60000,
  expect: { timeout: 10000 },
  reporter: [['list']],
  outputDir: process.env.UI_ARTEFACTS ? `${process.env.UI_ARTEFACTS}/results` : 'test-results',
  use: {
    baseURL: process.env.OFCD_URL || 'http://127.0.0.1:8181',
    viewport: { width: 1280, height: 800 },
    trace: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      // As root (CI) Chromium needs --no-sandbox; the rest keep it off the
      // closed network (no background requests, no component updates).
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
});
