// The dashboard's shell: the navigation, the page routes (#/name/arg), the
// login gate when rest.auth is on, and the one event stream all pages share.
import './style.css';
import 'uplot/dist/uPlot.min.css';
import { h, clear } from './dom.js';
import { serverConfig, onUnauthorized, setToken, token } from './api.js';
import * as stream from './stream.js';
import overview from './pages/overview.js';
import topology from './pages/topology.js';
import switches from './pages/switches.js';
import switchPage from './pages/switch.js';
import flows from './pages/flows.js';
import circuits from './pages/circuits.js';
import events from './pages/events.js';
import cluster from './pages/cluster.js';
import loginPage from './pages/login.js';

const pages = {
  overview: { title: 'Overview', mount: overview },
  topology: { title: 'Topology', mount: topology },
  switches: { title: 'Switches', mount: switches },
  switch: { title: 'Switch', mount: switchPage, hidden: true },
  flows: { title: 'Flows', mount: flows },
  circuits: { title: 'Circuits', mount: circuits },
  events: { title: 'Events', mount: events },
  cluster: { title: 'Cluster', mount: cluster },
  login: { title: 'Log in', mount: loginPage, hidden: true },
};

const pageEl = document.getElementById('page');
const nav = document.getElementById('nav');
const logoutBtn = document.getElementById('logout');
let unmount = null;
let needLogin = false;
let loginReason = '';

for (const [name, p] of Object.entries(pages)) {
  if (p.hidden) continue;
  nav.append(h('a', { href: `#/${name}`, 'data-test': `nav-${name}` }, p.title));
}

stream.onState((s) => {
  const el = document.getElementById('stream-state');
  el.dataset.state = s;
  el.textContent = { idle: '', connecting: 'connecting…', live: 'live',
    reconnecting: 'stream lost: reconnecting…' }[s];
});

onUnauthorized((reason) => {
  needLogin = true;
  loginReason = reason;
  stream.stop();
  if (location.hash.startsWith('#/login')) {
    route();                    // already there: show the reason
    return;
  }
  location.hash = `#/login/${encodeURIComponent(location.hash || '#/overview')}`;
});

logoutBtn.addEventListener('click', () => {
  setToken(null);
  needLogin = true;
  loginReason = 'Logged out.';
  stream.stop();
  location.hash = '#/login';
});

function route() {
  const parts = (location.hash.replace(/^#\/?/, '') || 'overview').split('/');
  const name = pages[parts[0]] ? parts[0] : 'overview';
  const arg = parts.slice(1).map(decodeURIComponent).join('/');
  if (unmount) unmount();
  unmount = null;
  clear(pageEl);
  for (const a of nav.children) a.classList.toggle('here', a.getAttribute('href') === `#/${name}`);
  document.title = `ofcd · ${pages[name].title}`;
  logoutBtn.hidden = !token();
  if (name === 'login') {
    unmount = loginPage(pageEl, arg, loginReason, () => {
      needLogin = false;
      loginReason = '';
      stream.start();
      location.hash = arg || '#/overview';
    });
    return;
  }
  if (needLogin) {
    location.hash = '#/login';
    return;
  }
  pageEl.dataset.page = name;
  unmount = pages[name].mount(pageEl, arg) || null;
  pageEl.focus({ preventScroll: true });
}

async function boot() {
  const cfg = await serverConfig().catch(() => ({ auth: false }));
  needLogin = cfg.auth && !token();
  if (needLogin) loginReason = 'Log in to continue.';
  else stream.start();
  window.addEventListener('hashchange', route);
  route();
}

boot();
