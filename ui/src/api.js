// The API client: every request carries the user's token when there is
// one (rest.auth); a 401 sends the user to the login page, saying why.

const TOKEN_KEY = 'ofcd.token';

// 64-bit fields (cookies, dpids as numbers) past 2^53 would be rounded by
// JSON.parse: they are kept as Big, exactly, and written back as numbers.
export class Big {
  constructor(text) { this.text = text; }
  toString() { return this.text; }
  toJSON() { return `\u0000big:${this.text}`; }
}

export function parseJson(text) {
  // The reviver costs ~10x the parse: only where a long number may be.
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  return JSON.parse(text, (key, value, ctx) => (typeof value === 'number' && !Number.isSafeInteger(value) &&
    ctx && /^-?\d+$/.test(ctx.source) ? new Big(ctx.source) : value));
}

export function stringifyJson(value) {
  return JSON.stringify(value).replace(/"\\u0000big:(-?\d+)"/g, '$1');
}

// A 64-bit value (number, Big or decimal/0x text) as a BigInt.
export function big(v) {
  return BigInt(v === null || v === undefined ? 0 : String(v));
}
const listeners = new Set();

export class ApiError extends Error {
  constructor(status, description) {
    super(description || `HTTP ${status}`);
    this.status = status;
    this.description = description || `HTTP ${status}`;
  }
}

export function token() {
  return localStorage.getItem(TOKEN_KEY);
}

export function setToken(t) {
  if (t) told = false;
  if (t) localStorage.setItem(TOKEN_KEY, t);
  else localStorage.removeItem(TOKEN_KEY);
}

// fn(reason) when a request was refused for want of a valid token.
export function onUnauthorized(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function authHeaders() {
  const t = token();
  return t ? { Authorization: `Bearer ${t}` } : {};
}

// Every request that fails for the same lost token says so once: the
// first says why (expired, or none), the others add nothing.
let told = false;
export function unauthorized() {
  if (told && !token()) return;
  const reason = token() ? 'Your session has expired: log in again.' : 'Log in to continue.';
  told = true;
  setToken(null);
  for (const fn of listeners) fn(reason);
}

// api(path, {method, body}): the JSON answer; throws ApiError with the
// server's description for any status other than 2xx.
export async function api(path, opts = {}) {
  const init = { method: opts.method || 'GET', headers: { ...authHeaders() } };
  if (opts.body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = typeof opts.body === 'string' ? opts.body : stringifyJson(opts.body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, `ofcd cannot be reached (${e.message})`);
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? parseJson(text) : null;
  } catch {
    data = text;
  }
  if (res.status === 401) {
    unauthorized();
    throw new ApiError(401, data && data.description);
  }
  if (!res.ok) throw new ApiError(res.status, data && data.description);
  return data;
}

// A file the server makes (a capture): fetched with the token, then saved
// by the browser as name; throws ApiError as api() does.
export async function download(path, name) {
  let res;
  try {
    res = await fetch(path, { headers: { ...authHeaders() } });
  } catch (e) {
    throw new ApiError(0, `ofcd cannot be reached (${e.message})`);
  }
  if (!res.ok) {
    let description = null;
    try {
      description = parseJson(await res.text()).description;
    } catch { /* not JSON: the status says it */ }
    if (res.status === 401) unauthorized();
    throw new ApiError(res.status, description);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

// The Kytos login route with Basic credentials: the token, or ApiError.
export async function login(user, password) {
  const res = await fetch('/api/kytos/core/auth/login/', {
    // X-Requested-With: no Basic challenge in the 401 (the browser would
    // open its own password dialog over this page's form).
    headers: { Authorization: `Basic ${btoa(`${user}:${password}`)}`, 'X-Requested-With': 'XMLHttpRequest' },
  });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, data && data.description);
  setToken(data.token);
  return data.token;
}

// What the server says before any token: {auth, cluster, topology, circuits} (rest_ui.h).
let config = null;
export async function serverConfig() {
  if (!config) {
    const res = await fetch('/ui/config.json');
    config = res.ok ? await res.json() : { auth: false, cluster: false, topology: false, circuits: false };
  }
  return config;
}
