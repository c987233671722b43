// The topology page at a fat-tree's size (tests/integration/ui_browser.sh:
// 980 emulated switches, 10,976 links): every switch and link drawn, the
// time it took written to UI_ARTEFACTS/scale-render.txt, a click on a
// switch still answered at once.
const { test, expect, graph } = require('./fixtures');
const fs = require('node:fs');

test('the topology page draws the whole fat-tree and stays responsive', async ({ page }) => {
  const n = Number(process.env.UI_SWITCHES), links = Number(process.env.UI_LINKS);
  await page.goto('/ui/#/overview');
  await expect(page.locator('[data-test=count-links-up]')).toHaveText(String(links));
  const t0 = Date.now();
  await page.goto('/ui/#/topology');
  const canvas = page.locator('[data-test=topology-graph]');
  await expect(canvas).toHaveAttribute('data-ready', 'true', { timeout: 30000 });
  const wall = Date.now() - t0;
  const drawn = Number(await canvas.getAttribute('data-render-ms'));
  expect(await graph(page, 'return [cy.nodes().length, cy.edges().length]')).toEqual([n, links]);
  // Responsive: a click on a switch shows its details, the links table filters.
  // A switch on the screen, and every switch drawn within 10 px of it (at
  // this size nodes overlap: the click may reach any of them).
  const [id, x, y, near] = await graph(page, `const inside = cy.nodes().filter((n) => {
    const p = n.renderedPosition(); return p.x > 10 && p.y > 10 && p.x < cy.width() - 10 && p.y < cy.height() - 10; });
    const n = inside[Math.floor(inside.length / 2)], p = n.renderedPosition();
    const near = cy.nodes().filter((m) => { const q = m.renderedPosition();
      return Math.hypot(q.x - p.x, q.y - p.y) <= 10; }).map((m) => m.id());
    return [n.id(), p.x, p.y, near]`);
  const box = await canvas.boundingBox();
  const t1 = Date.now();
  await page.mouse.click(box.x + x, box.y + y);
  await expect(page.locator('[data-test=detail-dpid]')).not.toBeEmpty();
  const click = Date.now() - t1;
  expect(near).toContain(await page.locator('[data-test=detail-dpid]').textContent());
  await page.fill('[data-test=link-filter]', id.toUpperCase());   // case-insensitive
  await expect(page.locator('[data-test=link-row-count]')).toContainText(' of ');
  fs.writeFileSync(`${process.env.UI_ARTEFACTS}/scale-render.txt`,
    `${n} switches, ${links} links drawn in ${drawn} ms (page open to ready ${wall} ms), a click answered in ${click} ms`);
  await page.screenshot({ path: `${process.env.UI_ARTEFACTS}/topology-fattree.png` });
  // The goal is 2 s; cytoscape's own cost for 10,976 edges on this
  // 2-core machine (with ofcd and the emulator busy beside it) is 3.5-6 s
  // today (ui/README.md): the bound is the one held now, not the goal.
  expect(drawn).toBeLessThan(10000);
  expect(click).toBeLessThan(1000);
});
