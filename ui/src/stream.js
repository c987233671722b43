// The live event stream (GET /api/v1/events, Server-Sent Events) read with
// fetch, so that it carries the token like every other request (an
// EventSource cannot). One stream for the whole page: pages subscribe to
// kinds; a lost stream is retried with a growing pause, and the state is
// shown (connected, reconnecting) for the user to see.
import { authHeaders, parseJson, unauthorized } from './api.js';

const subs = new Set();
const stateSubs = new Set();
let state = 'idle';
let ctrl = null;
let retryMs = 500;
let timer = null;

export function onEvent(fn) {
  subs.add(fn);
  return () => subs.delete(fn);
}

export function onState(fn) {
  stateSubs.add(fn);
  fn(state);
  return () => stateSubs.delete(fn);
}

function setState(s) {
  state = s;
  for (const fn of stateSubs) fn(s);
}

function dispatch(kind, data) {
  let obj = null;
  try {
    obj = parseJson(data);
  } catch {
    return;
  }
  for (const fn of subs) fn(kind, obj);
}

export function start() {
  stop();
  run();
}

export function stop() {
  clearTimeout(timer);
  timer = null;
  if (ctrl) ctrl.abort();
  ctrl = null;
}

async function run() {
  const me = new AbortController();
  ctrl = me;
  setState(state === 'idle' ? 'connecting' : 'reconnecting');
  try {
    const res = await fetch('/api/v1/events', { headers: authHeaders(), signal: me.signal });
    if (res.status === 401) {
      // The token expired or was never there: the login page takes over
      // (and starts the stream again once logged in).
      ctrl = null;
      setState('idle');
      unauthorized();
      return;
    }
    if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
    setState('live');
    retryMs = 500;
    for (const fn of subs) fn('stream.open', {});
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let cut;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        let kind = 'message';
        const data = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) kind = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
        }
        if (data.length) dispatch(kind, data.join('\n'));
      }
    }
  } catch (e) {
    if (me.signal.aborted) return;
  }
  if (ctrl !== me) return;
  setState('reconnecting');
  timer = setTimeout(run, retryMs);
  retryMs = Math.min(retryMs * 2, 8000);
}
