// Bundles the dashboard into one flat folder that ofcd serves at /ui/
// (rest/http/rest_ui.h): index.html, app.js, app.css. Run by meson
// (ui/meson.build) as `node build.mjs OUTDIR`; the libraries come from
// node_modules (npm ci, scripts/install-deps), nothing from the network.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error('usage: node build.mjs OUTDIR');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(here, 'src/main.js') },
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['chrome110', 'firefox110', 'safari16'],
  outdir: out,
  legalComments: 'linked',
  logLevel: 'warning',
});
copyFileSync(join(here, 'src/index.html'), join(out, 'index.html'));
