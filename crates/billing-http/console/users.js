// Users, roles and API keys (USERS_MANAGE for users; every role manages its own API keys).

import { api, page, patch, can, currentUser, rereadMe } from './api.js';
import {
  h, replace, field, input, select, checkboxes, form, heading, pagedTable, filters, like,
  status, explain, when, copy, table, debounce, focusBack, closeOnEscape, named, numberValue,
} from './ui.js';

const PASSWORD_RULES = 'At least 12 and at most 128 characters, any characters (not only spaces). '
  + 'The user can be signed in everywhere with it until it is changed.';

let rolesCache = null;

/** The five roles with their permissions (`/v1/user-roles`, one page holds them all). */
async function roles() {
  if (!rolesCache) rolesCache = (await page('/v1/user-roles', { page: 1, pageSize: 100 })).rows;
  return rolesCache;
}

/** A multi-select of contract owners, refined by name on the server (a page at a time). */
function contractOwnerPicker(chosen = []) {
  const list = h('select', { id: `co-${Math.random().toString(36).slice(2)}`, multiple: true, size: 5, 'data-field': 'contractOwnerIds' });
  const search = input('contractOwnerSearch', { type: 'search', placeholder: 'Name contains…' });
  const selected = new Set(chosen.map(String));
  let latest = 0;
  async function load() {
    const mine = ++latest;
    const { rows } = await page('/v1/contract-owners', { page: 1, pageSize: 50, sort: 'name', name: like(search.value.trim()) });
    if (mine !== latest) return; // a later search's answer wins, whenever this one arrives
    for (const option of list.selectedOptions) selected.add(option.value);
    for (const option of list.options) if (!option.selected) selected.delete(option.value);
    const shown = new Set(rows.map((row) => String(row.id)));
    const extra = [...selected].filter((id) => !shown.has(id)).map((id) => ({ id, name: `contract owner ${id}` }));
    replace(list, [...extra, ...rows].map((row) => h('option', { value: row.id, selected: selected.has(String(row.id)) }, `${row.name} (${row.id})`)));
  }
  search.addEventListener('input', debounce(() => { load().catch(() => {}); }));
  load().catch(() => {});
  const element = h('div', { class: 'picker grid' },
    field('Find contract owners', search),
    field('Contract owners (none chosen: every contract owner; not for administrators)', list));
  element.values = () => [...list.selectedOptions].map((option) => Number(option.value));
  /** Back to no choice and the unfiltered list (after its form was reset: the box is empty). */
  element.reset = () => {
    search.value = '';
    selected.clear();
    for (const option of list.options) option.selected = false;
    return load().catch(() => {});
  };
  return element;
}

export async function usersPage(main) {
  const allRoles = await roles();
  const roleCodes = allRoles.map((role) => [role.code, `${role.name} (${role.code})`]);
  let query = {};
  const columns = [
    { title: 'Id', value: (user) => String(user.id) },
    { title: 'Username', value: (user) => user.username },
    { title: 'E-mail', value: (user) => user.email || '' },
    { title: 'Roles', value: (user) => user.roles.join(', ') },
    { title: 'Contract owners', value: (user) => (user.contractOwnerIds.length
      ? h('span', {}, user.contractOwnerIds.map((id, index) => [index ? ', ' : '', named('/v1/contract-owners', id, (r) => r.name)]))
      : 'all') },
    { title: 'Active', value: (user) => (user.active ? 'yes' : 'no') },
    { title: 'Last sign-in', value: (user) => when(user.lastLoginDate) },
    { title: 'Actions', value: (user) => h('span', { class: 'row-actions' },
      h('button', { type: 'button', 'data-key': `active-${user.id}`, onclick: (event) => setActive(user, !user.active, event.currentTarget) }, `${user.active ? 'Deactivate' : 'Reactivate'} ${user.username}`),
      h('button', { type: 'button', 'data-key': `roles-${user.id}`, onclick: (event) => editRoles(user, event.currentTarget) }, `Change roles of ${user.username}`)) },
  ];
  const list = pagedTable(columns, (pageNumber, pageSize) => page('/v1/users', { page: pageNumber, pageSize, sort: 'username', ...query }));
  const editor = h('section', { 'aria-label': 'Change roles', class: 'panel', hidden: true });
  /** Closes the roles editor; the focus goes back to the button that opened it (else the heading). */
  let closeEditor = () => {};
  closeOnEscape(editor, () => closeEditor());

  async function setActive(user, active, opener) {
    if (!active && user.id === currentUser().userId
      && !window.confirm(`Deactivate yourself (${user.username})? You are signed out everywhere at once, this console included, and cannot sign in again until another administrator reactivates you.`)) {
      return;
    }
    try {
      const current = await api('GET', `/v1/users/${user.id}`);
      await patch(`/v1/users/${user.id}`, [{ op: 'replace', path: '/active', value: active }], current.etag);
      status(`${user.username} is ${active ? 'active again' : 'deactivated (signed out everywhere)'}.`, 'ok');
      await list.reload();
      // The row's button now says the opposite: the focus goes to it (same key, new name).
      focusBack(opener, () => main.querySelector('h1'));
    } catch (error) {
      status(explain(error), 'error');
    }
  }

  function editRoles(user, opener) {
    const roleBoxes = checkboxes('roles', `Roles of ${user.username}`, roleCodes, user.roles);
    const owners = contractOwnerPicker(user.contractOwnerIds);
    const back = () => focusBack(opener, () => main.querySelector('h1'));
    closeEditor = () => { editor.hidden = true; back(); };
    replace(editor, h('h2', {}, `Change roles or contract owners of ${user.username}`), form([roleBoxes, owners], async () => {
      const yourself = user.id === currentUser().userId;
      if (yourself && !roleBoxes.values().includes('ADMINISTRATOR')
        && !window.confirm(`Give up your own ADMINISTRATOR role? From now on you can no longer manage users, and the console shows only what your new roles allow.`)) {
        return;
      }
      const current = await api('GET', `/v1/users/${user.id}`);
      await patch(`/v1/users/${user.id}`, [
        { op: 'replace', path: '/roles', value: roleBoxes.values() },
        { op: 'replace', path: '/contractOwnerIds', value: owners.values() },
      ], current.etag);
      editor.hidden = true;
      status(`Roles of ${user.username} changed.`, 'ok');
      if (yourself) {
        // Drawn again for the new roles (this page included, if they no longer show it).
        await rereadMe();
        return;
      }
      await list.reload();
      back();
    }, { label: 'Save roles', extra: h('button', { type: 'button', onclick: () => closeEditor() }, 'Cancel') }));
    editor.hidden = false;
    roleBoxes.querySelector('input').focus();
  }

  const roleFilter = select('role', roleCodes, { blank: 'Any role' });
  const activeFilter = select('active', [['true', 'Active'], ['false', 'Inactive']], { blank: 'Active or not' });
  const search = filters([
    ['Username contains', input('username')],
    ['E-mail contains', input('email')],
    ['Role', roleFilter],
    ['Status', activeFilter],
  ], async (values) => {
    query = { username: like(values.username), email: like(values.email), roles: like(values.role), active: values.active };
    list.reload(true);
  });

  const username = input('username', { required: true, autocomplete: 'off' });
  const email = input('email', { type: 'email', autocomplete: 'off' });
  const password = input('password', { type: 'password', required: true, autocomplete: 'new-password' });
  const newRoles = checkboxes('roles', 'Roles (at least one)', roleCodes, []);
  const owners = contractOwnerPicker();
  const createForm = form([
    field('Username', username, '1 to 100 letters, digits, . - _ @ (case-sensitive, unique).'),
    field('E-mail (optional)', email),
    field('Password', password, PASSWORD_RULES),
    newRoles,
    owners,
  ], async () => {
    const body = { username: username.value.trim(), password: password.value, roles: newRoles.values(), contractOwnerIds: owners.values() };
    if (email.value.trim()) body.email = email.value.trim();
    let created;
    try {
      created = await api('POST', '/v1/users', { body });
    } catch (error) {
      // The username is taken: said beside the username, like any other field error.
      if (error.status === 409 && !error.errors.length) error.errors = [{ field: 'username', message: 'is already taken by another user' }];
      throw error;
    }
    password.value = '';
    status(`User ${created.body.username} created.`, 'ok');
    createForm.reset();
    // reset() empties the search box: the list of contract owners is unfiltered again.
    owners.reset();
    list.reload(true);
  }, { label: 'Create user' });

  replace(main, heading('Users'), search, list, editor,
    h('section', { class: 'panel' }, h('h2', {}, 'New user'), createForm));
}

export async function rolesPage(main) {
  const allRoles = await roles();
  const me = currentUser();
  replace(main, heading('Roles'),
    h('p', {}, `You hold: ${me.roles.join(', ')}. Your permissions: ${me.permissions.join(', ')}.`),
    table([
      { title: 'Code', value: (role) => role.code },
      { title: 'Name', value: (role) => role.name },
      { title: 'What it is for', value: (role) => role.description },
      { title: 'Permissions', value: (role) => h('ul', { class: 'plain' }, role.permissions.map((p) => h('li', {}, p))) },
    ], allRoles, 'The built-in roles and what each permits'));
}

export async function apiKeysPage(main) {
  const me = currentUser();
  const admin = can('USERS_MANAGE');
  const columns = [
    { title: 'Name', value: (key) => key.name },
    { title: 'Starts with', value: (key) => h('code', {}, key.keyPrefix) },
    // The user's name: the signed-in user's own is known; an administrator may read the others'.
    { title: 'User', value: (key) => (key.userId === me.userId ? `${me.username} (${key.userId})`
      : admin ? named('/v1/users', key.userId, (r) => r.username) : String(key.userId)) },
    { title: 'Roles', value: (key) => key.roles.join(', ') },
    { title: 'Created', value: (key) => when(key.createdDate) },
    { title: 'Last used', value: (key) => when(key.lastUsedAt) || 'never' },
    { title: 'Revoke', value: (key) => h('button', { type: 'button', disabled: me.apiKey, onclick: () => revoke(key) }, `Revoke ${key.name}`) },
  ];
  const list = pagedTable(columns, (pageNumber, pageSize) => page('/v1/api-keys', {
    page: pageNumber, pageSize, sort: 'createdDate:desc', userId: admin ? '' : me.userId,
  }));
  async function revoke(key) {
    if (!window.confirm(`Revoke the API key "${key.name}"? Scripts using it stop working at once.`)) return;
    try {
      await api('DELETE', `/v1/api-keys/${key.id}`);
      // The key shown once is no use any more: it goes with its revocation.
      if (shown.dataset.keyId === String(key.id)) hideKey();
      status(`API key ${key.name} revoked.`, 'ok');
      await list.reload();
      focusBack(null, () => main.querySelector('h1'));
    } catch (error) {
      status(explain(error), 'error');
    }
  }
  const shown = h('section', { class: 'panel secret', hidden: true, 'aria-live': 'polite' });
  function hideKey() {
    replace(shown);
    shown.hidden = true;
    delete shown.dataset.keyId;
    // Back to the button that created the key, ready for the next one.
    focusBack(createForm.querySelector('button[type="submit"]'), () => main.querySelector('h1'));
  }
  const name = input('name', { required: true });
  // The roles offered are those of the user the key is for: a key holds some or all of them.
  const rolesLegend = 'Roles of the key (none ticked: all of the user\'s roles)';
  let keyRoles = checkboxes('roles', rolesLegend, me.roles, []);
  const rolesSlot = h('div', {}, keyRoles);
  const userId = admin ? input('userId', { type: 'number', min: 1 }) : null;
  let asked = 0;
  userId?.addEventListener('change', async () => {
    const mine = ++asked;
    const id = Number(userId.value);
    const roles = !id || id === me.userId
      ? me.roles
      : await api('GET', `/v1/users/${id}`).then((answer) => answer.body.roles, () => []);
    if (mine !== asked) return; // a later choice's answer wins
    keyRoles = checkboxes('roles', rolesLegend, roles, []);
    rolesSlot.replaceChildren(keyRoles);
  });
  const createForm = form([
    field('Name', name, 'What the key is for, e.g. "nightly export".'),
    userId ? field('For user id (empty: yourself)', userId, 'The users list shows each user\'s id.') : null,
    rolesSlot,
  ], async () => {
    const body = { name: name.value.trim() };
    const chosen = keyRoles.values();
    if (chosen.length) body.roles = chosen;
    if (userId && userId.value.trim()) body.userId = numberValue(userId);
    const created = (await api('POST', '/v1/api-keys', { body })).body;
    const keyText = h('input', { id: 'new-api-key', type: 'text', readonly: true, value: created.key, size: 60, 'aria-describedby': 'new-api-key-note' });
    replace(shown,
      h('h2', {}, `The key "${created.name}"`),
      h('p', { id: 'new-api-key-note' }, 'This is the only time the key is shown: copy it now and keep it safe. Only its first characters are stored in a form that can be read back.'),
      h('label', { for: keyText.id }, 'API key'), keyText,
      h('button', { type: 'button', onclick: () => copy(created.key, keyText) }, 'Copy key'),
      h('button', { type: 'button', onclick: hideKey }, 'I have stored it: hide the key'));
    shown.dataset.keyId = String(created.id);
    shown.hidden = false;
    keyText.focus();
    createForm.reset();
    userId?.dispatchEvent(new Event('change'));
    list.reload(true);
  }, { label: 'Create API key' });
  replace(main, heading('API keys'),
    me.apiKey ? h('p', { class: 'notice' }, 'Signed in with an API key: keys cannot be created or revoked with one.') : null,
    h('p', {}, admin ? 'Every user\'s keys.' : 'Your keys.'),
    list, shown,
    me.apiKey ? null : h('section', { class: 'panel' }, h('h2', {}, 'New API key'), createForm));
}

