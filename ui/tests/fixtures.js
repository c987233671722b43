// What every dashboard test shares: a page that records console errors and
// uncaught exceptions (a test fails on any), a screenshot helper that
// writes into UI_ARTEFACTS, and the commands that change the Open vSwitch
// bridges behind ofcd.
const base = require('@playwright/test');
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const test = base.test.extend({
  page: async ({ page }, use) => {
    const errors = [];
    // page.allowConsole: patterns a test expects (a 401 it provokes).
    page.allowConsole = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && !page.allowConsole.some((re) => re.test(m.text()))) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.consoleErrors = errors;
    await use(page);
    base.expect(errors, 'console errors on the page').toEqual([]);
  },
});

async function shot(page, name) {
  const dir = process.env.UI_ARTEFACTS || 'test-results';
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: false });
}

// ovs-vsctl on the test's own Open vSwitch (OVS_SOCK from the script).
function vsctl(...args) {
  return execFileSync('ovs-vsctl', [`--db=unix:${process.env.OVS_SOCK}`, '--timeout=30', ...args],
    { encoding: 'utf8' });
}

function dumpFlows(bridge) {
  return execFileSync('ovs-ofctl', ['-O', 'OpenFlow13', '--no-stats', '--no-names', 'dump-flows',
    `unix:${process.env.OVS_DIR}/${bridge}.mgmt`], { encoding: 'utf8' });
}

// The dpid of bridge i in the test's ring (ovs_lib.sh: 0x1000 + i).
function dpid(i) {
  return (0x1000 + i).toString(16).padStart(16, '0').match(/../g).join(':');
}

// The page's graph, for what a canvas does not show the DOM: each
// element's state, position and the pixels drawn (ui/src/canvasgraph.js
// keeps its interface on the container as ofcdGraph). fn is the body of a
// function of (g, arg); which: the graph's data-test (the Topology page's
// by default, circuit-graph for the Circuits page's).
async function graph(page, fn, arg, which = 'topology-graph') {
  return page.locator(`[data-test=${which}]`).evaluate(
    (el, [src, a]) => new Function('g', 'arg', src)(el.ofcdGraph, a), [fn, arg]);
}

module.exports = { test, expect: base.expect, shot, vsctl, dumpFlows, dpid, graph };
