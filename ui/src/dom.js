// Small DOM helpers: elements from a tag, attributes and children, and the
// formats every page shares.

// h('div', {class: 'x', 'data-test': 'y', onclick: fn}, child, ...): an
// element; children are nodes, strings, numbers, arrays or null (skipped).
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// "00:00:00:00:00:00:10:01" from any dpid form the API gives.
export function dpidText(d) {
  if (typeof d === 'number') d = d.toString(16);
  const hex = String(d).replace(/:/g, '').padStart(16, '0');
  return hex.match(/../g).join(':');
}

export function ago(unixS) {
  if (!unixS) return '';
  const s = Math.max(0, Math.round(Date.now() / 1000 - unixS));
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 129600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

export function seconds(s) {
  if (s === null || s === undefined) return '';
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

export function bytes(n) {
  if (n === null || n === undefined) return '–';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return `${n.toFixed(i ? 1 : 0)} ${u[i]}`;
}

export function num(v, digits = 0) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  return Number(v).toFixed(digits);
}

// The sum of a port's counters that the switch keeps (it reports the others
// as null), or null when it keeps none of them.
export function counterSum(c, keys) {
  const kept = c ? keys.map((k) => c[k]).filter((v) => v !== null && v !== undefined) : [];
  return kept.length ? kept.reduce((a, b) => a + b, 0) : null;
}

// A dialog that asks before a change; resolves true when confirmed.
export function confirmDialog(text) {
  return new Promise((resolve) => {
    const dlg = h('dialog', { class: 'confirm', 'data-test': 'confirm-dialog' },
      h('p', {}, text),
      h('div', { class: 'buttons' },
        h('button', { 'data-test': 'confirm-no', onclick: () => done(false) }, 'Cancel'),
        h('button', { class: 'danger', 'data-test': 'confirm-yes', onclick: () => done(true) },
          'Confirm')));
    function done(v) {
      dlg.close();
      dlg.remove();
      resolve(v);
    }
    dlg.addEventListener('cancel', () => done(false));
    document.body.append(dlg);
    dlg.showModal();
  });
}
