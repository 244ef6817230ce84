// The API client and the session. The tokens live in this module's variables only: never in
// localStorage, sessionStorage, a cookie or a URL. A page reload forgets them (sign in again).
// The access token is refreshed (the refresh token rotates) a minute before it expires;
// signing out revokes the refresh token's family on the server.

// One object per sign-in: an answer that arrives for a session that has ended since (signed
// out, or signed in again) is dropped, never adopted into the next one.
let session = null; // { token, refreshToken, expiresAt, me, refreshing }
let refreshTimer = null;
const listeners = new Set();

/** An answer that is not 2xx: the problem+json body, its field errors and status. */
export class Problem extends Error {
  constructor(status, body, headers) {
    const detail = body && typeof body === 'object' ? body.detail || body.title : null;
    super(detail || `The server answered ${status}.`);
    this.status = status;
    this.body = body && typeof body === 'object' ? body : {};
    this.errors = Array.isArray(this.body.errors) ? this.body.errors : [];
    this.retryAfter = headers ? headers.get('Retry-After') : null;
  }
}

async function readBody(response) {
  const type = response.headers.get('Content-Type') || '';
  if (response.status === 204 || response.status === 304) return null;
  const text = await response.text();
  if (!text) return null;
  if (type.includes('json')) {
    try { return JSON.parse(text); } catch { return { detail: text }; }
  }
  return text;
}

async function postJson(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
  });
  const parsed = await readBody(response);
  if (!response.ok) throw new Problem(response.status, parsed, response.headers);
  return parsed;
}

function notify(reason) {
  for (const listener of listeners) listener(session, reason);
}

/** Calls `listener(session, reason)` whenever someone signs in or out, or the session ends. */
export function onSessionChange(listener) {
  listeners.add(listener);
}

function adopt(owner, pair) {
  owner.token = pair.token;
  owner.refreshToken = pair.refreshToken;
  owner.expiresAt = Date.now() + pair.expiresIn * 1000;
  clearTimeout(refreshTimer);
  const lead = Math.min(60, pair.expiresIn * 0.2);
  refreshTimer = setTimeout(() => {
    refresh().catch((error) => endIfCurrent(owner, error instanceof Problem
      ? `Your session ended: ${error.message}`
      : 'Your session ended: the server could not be reached to renew it.'));
  }, Math.max(1, pair.expiresIn - lead) * 1000);
}

/** Ends `owner` if it is still the session (a sign-out or a new sign-in may have come since). */
function endIfCurrent(owner, reason) {
  if (session === owner) end(reason);
}

function end(reason) {
  clearTimeout(refreshTimer);
  session = null;
  names.clear();
  notify(reason);
}

/** Signs in with the API's own endpoint (and its throttle); then asks who we are. */
export async function signIn(username, password) {
  const pair = await postJson('/v1/authenticate', { username, password });
  session = { me: null, refreshing: null };
  adopt(session, pair);
  try {
    session.me = (await api('GET', '/console/session')).body;
  } catch (error) {
    await signOut();
    throw error;
  }
  notify('signed-in');
}

/** A new token pair for the refresh token (which is used up: the new one replaces it). */
export function refresh() {
  if (!session) return Promise.reject(notSignedIn());
  const owner = session;
  if (!owner.refreshing) {
    owner.refreshing = presentRefreshToken(owner)
      .then((pair) => {
        // Signed out while the refresh was in flight: the pair is not adopted (the sign-out
        // revoked its family, or is revoking it).
        if (session !== owner) throw notSignedIn();
        adopt(owner, pair);
        return owner.token;
      })
      .finally(() => { owner.refreshing = null; });
  }
  return owner.refreshing;
}

/** Pauses before presenting the refresh token again after a network failure (two retries). */
const REFRESH_RETRY_DELAYS_MS = [1000, 3000];

/**
 * `POST /v1/authenticate/refresh`. A request that failed on the network (fetch threw, so no
 * answer came) is tried again after a short pause, twice at most, so one network blip does not
 * end the session and lose what the user was typing. Any answer of the server (a 401: the
 * token is refused) is final.
 */
async function presentRefreshToken(owner) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await postJson('/v1/authenticate/refresh', { refreshToken: owner.refreshToken });
    } catch (error) {
      if (error instanceof Problem || attempt >= REFRESH_RETRY_DELAYS_MS.length || session !== owner) throw error;
      await new Promise((resolve) => setTimeout(resolve, REFRESH_RETRY_DELAYS_MS[attempt]));
    }
  }
}

function notSignedIn() {
  return new Problem(401, { detail: 'You are not signed in.' });
}

/** Forgets the tokens and revokes the refresh token's family on the server. */
export async function signOut() {
  const presented = session ? session.refreshToken : null;
  clearTimeout(refreshTimer);
  session = null;
  names.clear();
  try {
    if (presented) await postJson('/v1/authenticate/revoke', { refreshToken: presented });
  } finally {
    notify('signed-out');
  }
}

/**
 * Reads again who the signed-in user is, after a change of their own roles or contract owners
 * (the service applies them from the next request on), and lets the page be drawn for them.
 */
export async function rereadMe() {
  const owner = session;
  if (!owner) return;
  const me = (await api('GET', '/console/session')).body;
  if (session !== owner) return;
  owner.me = me;
  notify('changed');
}

export function currentUser() {
  return session ? session.me : null;
}

/** Whether the signed-in user's roles grant `permission` (as `/console/session` reports). */
export function can(permission) {
  return !!(session && session.me && session.me.permissions.includes(permission));
}

/** Whether a session is held. */
export function isSignedIn() {
  return session !== null;
}

function send(method, path, options, token) {
  const headers = { Authorization: `Bearer ${token}`, ...(options.headers || {}) };
  const init = { method, headers, cache: 'no-store', credentials: 'omit' };
  if (options.body !== undefined) {
    headers['Content-Type'] = options.contentType || 'application/json';
    init.body = JSON.stringify(options.body);
  }
  return fetch(path, init);
}

/**
 * Calls the API with the session's token: `{status, body, etag, total, headers}`, or throws a
 * Problem. A 401 is tried once more after a refresh (the token may have just expired).
 */
export async function api(method, path, options = {}) {
  const owner = session;
  if (!owner) throw notSignedIn();
  if (owner.expiresAt - Date.now() < 10_000) await renew(owner);
  let response = await send(method, path, options, owner.token);
  if (session !== owner) throw notSignedIn();
  if (response.status === 401) {
    await renew(owner);
    response = await send(method, path, options, owner.token);
  }
  if (session !== owner) throw notSignedIn();
  // A write the console makes (even one refused: it may have raced another) makes the name it
  // may have cached of that record stale.
  if (method !== 'GET' && method !== 'HEAD') forgetName(path);
  const body = await readBody(response);
  if (!response.ok) throw new Problem(response.status, body, response.headers);
  const total = response.headers.get('X-Total-Count');
  return {
    status: response.status,
    body,
    headers: response.headers,
    etag: response.headers.get('ETag'),
    total: total === null ? null : Number(total),
  };
}

/** A refresh for a request of `owner`; one that fails ends the session, if it is still `owner`. */
async function renew(owner) {
  try {
    await refresh();
  } catch (error) {
    endIfCurrent(owner, 'Your session ended: sign in again.');
    throw error;
  }
  if (session !== owner) throw notSignedIn();
}

/** `path?params`, leaving out empty values. */
export function withQuery(path, params) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** One page of a collection: `{rows, total}`. */
export async function page(path, params) {
  const answer = await api('GET', withQuery(path, params));
  return { rows: answer.body || [], total: answer.total ?? 0 };
}

/** A JSON Patch with `If-Match` (when an ETag is known) and any extra headers. */
export function patch(path, operations, etag, headers = {}) {
  const all = { ...headers };
  if (etag) all['If-Match'] = etag;
  return api('PATCH', path, {
    body: operations,
    contentType: 'application/json-patch+json',
    headers: all,
  });
}

/** How long a name read with `nameOf` is kept before it is read again. */
const NAME_LIFETIME_MS = 60_000;

/**
 * Names of records already looked up (`/v1/contract-owners/3` → `{at, name}`): kept for a minute
 * at most, and forgotten at once when the console itself writes that record (`api`).
 */
const names = new Map();

/** Forgets the name of the record at `path` (`/v1/billing-cycles/2`), after a write to it. */
function forgetName(path) {
  names.delete(path.split('?')[0].replace(/\/+$/, ''));
}

/**
 * The name of one record (`show(record)`), read at most once a minute (and again after the
 * console changed or deleted the record); the id when the API does not let the user read it.
 * Pages show a handful of distinct ids, so this is a few small reads.
 */
export function nameOf(path, id, show) {
  const key = `${path}/${id}`;
  const known = names.get(key);
  if (known && Date.now() - known.at < NAME_LIFETIME_MS) return known.name;
  const name = api('GET', key).then((answer) => show(answer.body)).catch(() => `#${id}`);
  names.set(key, { at: Date.now(), name });
  return name;
}
