// Log in with the Kytos route (Basic credentials for a bearer token).
import { h } from '../dom.js';
import { login } from '../api.js';

export default function loginPage(el, back, reason, done) {
  const user = h('input', { id: 'login-user', autocomplete: 'username', required: true, 'data-test': 'login-user' });
  const pass = h('input', { id: 'login-password', type: 'password', autocomplete: 'current-password', required: true,
    'data-test': 'login-password' });
  const err = h('p', { class: 'error', role: 'alert', 'data-test': 'login-error' });
  const form = h('form', { class: 'login', 'data-test': 'login-form' },
    h('h1', {}, 'Log in to ofcd'),
    reason ? h('p', { class: 'note', 'data-test': 'login-reason' }, reason) : null,
    h('label', { for: 'login-user' }, 'User'), user,
    h('label', { for: 'login-password' }, 'Password'), pass,
    h('button', { type: 'submit', 'data-test': 'login-submit' }, 'Log in'),
    err);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.textContent = '';
    try {
      await login(user.value, pass.value);
      done();
    } catch (x) {
      err.textContent = x.status === 401 ? 'Wrong user or password.' : x.description;
      pass.select();
    }
  });
  el.append(form);
  user.focus();
  return null;
}
