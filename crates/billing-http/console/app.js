// The console's shell: sign-in, the section navigation and the router (the URL's fragment,
// `#/users`, names the page; it never reaches the server and never holds a secret).

import { signIn, signOut, onSessionChange, currentUser, can } from './api.js';
import { h, replace, field, input, form, heading, status, explain, fadeStatus, clearStatus, waitText } from './ui.js';
import { usersPage, rolesPage, apiKeysPage } from './users.js';
import { customersPage, customerPage, sitesPage, sitePage, newSitePage, editSitePage } from './customers.js';
import { recordsPage, ratingPage } from './reference-data.js';
import { auditPage } from './audit.js';
import { kindOf } from './records.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
const signOutButton = document.getElementById('sign-out');

/** The sections, each shown only when the API would let the user use it. */
const SECTIONS = [
  { route: '/customers', label: 'Customers', permission: 'CUSTOMERS_READ' },
  { route: '/sites', label: 'Sites', permission: 'CUSTOMERS_READ' },
  { route: '/setup/contract-owners', label: 'Customer set-up', permission: 'CUSTOMERS_READ' },
  { route: '/reference-data/sources', label: 'Reference data', permission: 'REFERENCE_DATA_READ' },
  { route: '/rating', label: 'Rating tester', permission: 'REFERENCE_DATA_READ' },
  { route: '/users', label: 'Users', permission: 'USERS_MANAGE' },
  { route: '/roles', label: 'Roles', permission: null },
  { route: '/api-keys', label: 'API keys', permission: 'API_KEYS_MANAGE_OWN' },
  { route: '/audit', label: 'Audit trail', permission: 'AUDIT_READ' },
];

/**
 * Route patterns (`:id` a number), their pages and the permission a page needs (null: any
 * signed-in user), and for a route with a name in it whether it names something. A page the user's roles do not allow says so instead of drawing controls
 * the API would refuse; the pages that change records need the write permission.
 */
const ROUTES = [
  ['/customers', customersPage, 'CUSTOMERS_READ'],
  ['/customers/:id', customerPage, 'CUSTOMERS_READ'],
  ['/sites', sitesPage, 'CUSTOMERS_READ'],
  ['/sites/new', newSitePage, 'CUSTOMERS_WRITE'],
  ['/sites/:id', sitePage, 'CUSTOMERS_READ'],
  ['/sites/:id/edit', editSitePage, 'CUSTOMERS_WRITE'],
  ['/reference-data/:kind', (main, { kind }) => recordsPage(main, { group: 'reference-data', kind }), 'REFERENCE_DATA_READ', ({ kind }) => kindOf('reference-data', kind)],
  ['/setup/:kind', (main, { kind }) => recordsPage(main, { group: 'setup', kind }), 'CUSTOMERS_READ', ({ kind }) => kindOf('setup', kind)],
  ['/rating', ratingPage, 'REFERENCE_DATA_READ'],
  ['/users', usersPage, 'USERS_MANAGE'],
  ['/roles', rolesPage, null],
  ['/api-keys', apiKeysPage, 'API_KEYS_MANAGE_OWN'],
  ['/audit', auditPage, 'AUDIT_READ'],
];

function match(path) {
  const parts = path.split('/').filter(Boolean);
  for (const [pattern, page, permission, exists] of ROUTES) {
    const wanted = pattern.split('/').filter(Boolean);
    if (wanted.length !== parts.length) continue;
    const params = {};
    const ok = wanted.every((segment, i) => {
      if (segment === ':id') { params.id = parts[i]; return /^[1-9][0-9]*$/.test(parts[i]); }
      if (segment.startsWith(':')) { params[segment.slice(1)] = parts[i]; return true; }
      return segment === parts[i];
    });
    // A kind the page does not have is not found, like any unknown route.
    if (ok && (!exists || exists(params))) return { page, params, permission };
  }
  return null;
}

function currentRoute() {
  const hash = location.hash;
  return hash.startsWith('#/') ? hash.slice(1) : null;
}

function renderNav() {
  const me = currentUser();
  const route = currentRoute() || '';
  replace(nav, me ? h('ul', {}, SECTIONS.filter((s) => !s.permission || can(s.permission)).map((section) =>
    h('li', {}, h('a', {
      href: `#${section.route}`,
      'aria-current': route.startsWith(section.route.split('/').slice(0, 2).join('/')) ? 'page' : null,
      // Its bold width is reserved (console.css), so the current section's bold moves nothing.
      'data-label': section.label,
    }, section.label)))) : null);
  who.textContent = me ? `${me.username} (${me.roles.join(', ')}${me.contractOwnerIds.length ? `; contract owners ${me.contractOwnerIds.join(', ')}` : ''})` : '';
  signOutButton.hidden = !me;
}

/**
 * Which navigation may draw: each render takes the next number, and a page is only put in
 * place if no later navigation (or the end of the session) has taken one since. A page draws
 * into its own element, attached to `main` once it has loaded; one that loses the race draws
 * into an element no one sees, so a slow load can never cover the page the URL now names.
 */
let generation = 0;

async function render() {
  const mine = ++generation;
  fadeStatus();
  renderNav();
  if (!currentUser()) {
    signInPage();
    return;
  }
  const route = currentRoute();
  if (route === null) {
    // The skip link (#main) and other in-page anchors are not routes.
    if (!location.hash) location.replace(`#${firstSection()}`);
    return;
  }
  const found = match(route.split('?')[0]);
  if (!found) {
    replace(main, heading('Not found'), h('p', {}, 'The console has no such page. '), h('a', { href: `#${firstSection()}` }, 'Back to the start'));
    finishRender();
    return;
  }
  if (found.permission && !can(found.permission)) {
    replace(main, heading('Not allowed'),
      h('p', { class: 'notice', role: 'alert' }, `Your roles do not allow this page (it needs ${found.permission}).`),
      h('a', { href: `#${firstSection()}` }, 'Back to the start'));
    finishRender();
    return;
  }
  replace(main, h('p', {}, 'Loading…'));
  const view = h('div', { class: 'view' });
  try {
    await found.page(view, found.params);
  } catch (error) {
    if (mine !== generation) return;
    const title = { 403: 'Not allowed', 404: 'Not found' }[error.status] || 'Something went wrong';
    replace(view, heading(title), h('p', { class: 'form-error', role: 'alert' }, explain(error)));
  }
  if (mine !== generation) return;
  replace(main, view);
  finishRender();
}

/** The document's title follows the page's heading, also when a page redraws itself. */
new MutationObserver(() => {
  const title = main.querySelector('h1');
  const wanted = title ? `${title.textContent} · Billing console` : 'Billing console';
  if (document.title !== wanted) document.title = wanted;
}).observe(main, { childList: true, subtree: true, characterData: true });

/** The skip link moves the focus to the content without touching the address (a route). */
document.querySelector('.skip').addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

/** The document's title from the page's heading, which gets the focus. */
function finishRender() {
  const title = main.querySelector('h1');
  document.title = title ? `${title.textContent} · Billing console` : 'Billing console';
  if (title) title.focus();
}

function firstSection() {
  const section = SECTIONS.find((s) => !s.permission || can(s.permission));
  return section ? section.route : '/roles';
}

function signInPage(message) {
  document.title = 'Sign in · Billing console';
  const username = input('username', { autocomplete: 'username', required: true });
  const password = input('password', { type: 'password', autocomplete: 'current-password', required: true });
  const signInForm = form([
    field('Username', username),
    field('Password', password),
  ], async () => {
    try {
      await signIn(username.value.trim(), password.value);
    } catch (error) {
      // The throttle in one sentence, in place of the API's detail (which names the header).
      if (error.status === 429) {
        const wait = error.retryAfter ? `try again in ${waitText(error.retryAfter)}` : 'try again later';
        throw Object.assign(new Error(`Too many failed sign-ins for this username or from this address: ${wait}.`), { status: 429, explained: true, errors: [] });
      }
      throw error;
    }
    password.value = '';
    status(`Signed in as ${currentUser().username}.`, 'ok');
    if (!currentRoute()) location.replace(`#${firstSection()}`);
    else render();
  }, { label: 'Sign in' });
  signInForm.id = 'sign-in';
  replace(main, heading('Sign in'),
    message ? h('p', { class: 'notice', role: 'alert' }, message) : null,
    h('p', { class: 'hint' }, 'Your session lives in this tab only: reloading the page or closing it signs you out of the console.'),
    signInForm);
  username.focus();
}

onSessionChange((session, reason) => {
  if (reason === 'signed-in') return;
  // The user's own roles changed: the header, the sections and the page show what they allow now.
  if (reason === 'changed') {
    render();
    return;
  }
  if (!session) {
    // A page still loading (its refresh just failed, or the user signed out meanwhile) may not
    // draw over the sign-in form.
    generation += 1;
    renderNav();
    // The status bar may still say what the session did ("Signed in as …"): the sign-in form
    // says now why the session is over (a sign-out's own outcome follows in the bar once the
    // server answers).
    clearStatus();
    signInPage(reason === 'signed-out' ? 'You are signed out.' : reason);
  }
});

signOutButton.addEventListener('click', async () => {
  try {
    await signOut();
    status('Signed out: the session was revoked.', 'ok');
  } catch (error) {
    status(`Signed out here, but the server could not revoke the session: ${explain(error)}`, 'error');
  }
});

window.addEventListener('hashchange', render);
render();
