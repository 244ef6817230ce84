import { nameOf } from './api.js';

// Small DOM helpers: elements are built with text nodes only (never HTML from data), every
// control gets a <label for>, and the service's field errors are shown beside their fields.

let counter = 0;

/** A fresh id for a control. */
export function uid(prefix = 'f') {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** `h('button', {type: 'button', onclick: f}, 'Save')`: an element with attributes and children. */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), tag === 'button' && name === 'onclick' ? oneAtATime(element, value) : value);
    } else if (name === 'class') {
      element.className = value;
    } else if (name === 'for') {
      element.htmlFor = value;
    } else if (['value', 'checked', 'selected', 'disabled', 'hidden', 'required', 'open'].includes(name)) {
      element[name] = value;
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

/**
 * A button's click handler that, while the request it started (a promise it returned) runs,
 * ignores further clicks: a double click sends one request, not a second one refused with 412.
 * The button stays focusable (`aria-disabled`, not `disabled`, which would drop the focus).
 */
function oneAtATime(button, handler) {
  let running = false;
  return (event) => {
    if (running) return undefined;
    const result = handler(event);
    if (result && typeof result.then === 'function') {
      running = true;
      button.setAttribute('aria-disabled', 'true');
      const done = () => { running = false; button.removeAttribute('aria-disabled'); };
      result.then(done, done);
    }
    return result;
  };
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else if (child instanceof Node) element.appendChild(child);
    else element.appendChild(document.createTextNode(String(child)));
  }
}

/** Empties `element` and fills it with `children`. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/**
 * A text input (or `type` number, date, password, …) named for the API member `name`. A number
 * is typed in a text box with the numeric keyboard (`inputmode`), not `type=number`: Chromium
 * scrolls the page when such a box loses the focus, so that a click on the button below it
 * could land on another control; its `min`/`max` are the service's to check (field errors).
 */
export function input(name, { type = 'text', value = '', required = false, min = null, max = null, ...rest } = {}) {
  const numeric = type === 'number' ? { type: 'text', inputmode: 'numeric', autocomplete: 'off' } : { type, min, max };
  return h('input', { id: uid(), name, value: value ?? '', required, 'data-field': name, ...rest, ...numeric });
}

/**
 * The value of a number box for a body: null when empty, the number when it is a whole number,
 * else the text as typed, so that the service names the field in its own words ("must be an
 * integer") rather than the console sending null or NaN.
 */
export function numberValue(control) {
  const value = control.value.trim();
  if (value === '') return null;
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

/** A select of `[value, label]` pairs (or plain values); `blank` adds an empty first choice. */
export function select(name, options, { value = '', blank = null, required = false } = {}) {
  const control = h('select', { id: uid(), name, required, 'data-field': name });
  if (blank !== null) control.appendChild(h('option', { value: '' }, blank));
  for (const option of options) {
    const [optionValue, label] = Array.isArray(option) ? option : [option, option];
    control.appendChild(h('option', { value: optionValue, selected: String(optionValue) === String(value ?? '') }, label));
  }
  return control;
}

/** A checkbox group in a fieldset; `.values()` gives the checked values. */
export function checkboxes(name, legend, options, chosen = []) {
  const boxes = options.map((option) => {
    const [value, label] = Array.isArray(option) ? option : [option, option];
    const box = h('input', { type: 'checkbox', id: uid(), value, checked: chosen.includes(value) });
    return { value, box, label };
  });
  const set = h('fieldset', { class: 'checks', 'data-field': name },
    h('legend', {}, legend),
    boxes.map(({ box, label }) => h('span', { class: 'check' }, box, h('label', { for: box.id }, label))),
    h('p', { class: 'error', 'aria-live': 'polite' }));
  set.values = () => boxes.filter(({ box }) => box.checked).map(({ value }) => value);
  return set;
}

/** A labelled field: the label, the control, an optional hint and the slot for its error. */
export function field(label, control, hint = null) {
  const error = h('p', { class: 'error', id: uid('e'), 'aria-live': 'polite' });
  const described = [error.id];
  let hintNode = null;
  if (hint) {
    hintNode = h('p', { class: 'hint', id: uid('h') }, hint);
    described.push(hintNode.id);
  }
  control.setAttribute('aria-describedby', described.join(' '));
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintNode, error);
}

/** A form: `onsubmit(form)` runs on submit; errors it throws are shown in the form. */
export function form(children, onsubmit, { label = 'Save', extra = null } = {}) {
  const box = h('div', { class: 'form-error', role: 'alert', tabindex: '-1' });
  const button = h('button', { type: 'submit' }, label);
  const element = h('form', { novalidate: true }, box, children, h('div', { class: 'actions' }, button, extra));
  element.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(element);
    button.disabled = true;
    try {
      await onsubmit(element);
    } catch (error) {
      showProblem(element, error);
    } finally {
      button.disabled = false;
      // A disabled button loses the focus to the page; give it back where the user was.
      if (button.isConnected && (!document.activeElement || document.activeElement === document.body)) button.focus();
    }
  });
  return element;
}

export function clearErrors(element) {
  for (const error of element.querySelectorAll('.error')) error.textContent = '';
  for (const invalid of element.querySelectorAll('[aria-invalid]')) invalid.removeAttribute('aria-invalid');
  const box = element.querySelector('.form-error');
  if (box) box.replaceChildren();
}

/** The name an error's field is shown under: `[0].value`-style prefixes of a patch dropped. */
function candidates(field) {
  const names = [field];
  const stripped = field.replace(/^\[\d+\]\.?/, '');
  if (stripped !== field) names.push(stripped);
  return names;
}

/** Whether `node` is drawn (not in a hidden section). */
function shown(node) {
  return node.getClientRects().length > 0;
}

/**
 * The control that shows the errors of the API member `name`: the one named for it
 * (`data-field`), preferring one that is shown; else a shown control that stands in for it
 * (`data-errors-for`, e.g. the site receiving the invoices for `siteInvoiceDetails` when the
 * invoices go to another site and the invoice details are hidden); else a hidden one.
 */
function controlFor(element, name) {
  const named = [...element.querySelectorAll(`[data-field="${CSS.escape(name)}"]`)];
  const standIns = [...element.querySelectorAll(`[data-errors-for~="${CSS.escape(name)}"]`)];
  return named.find(shown) || standIns.find(shown) || named[0] || null;
}

/** The error slot of the nearest field or fieldset around `target` that has one of its own. */
function errorSlot(target) {
  for (let node = target; node && node.tagName !== 'FORM'; node = node.parentElement) {
    if (node.matches('.field, fieldset')) {
      const slot = node.querySelector(':scope > .error');
      if (slot) return slot;
    }
  }
  return null;
}

/**
 * Shows a Problem in `element`: each of its `errors` beside the control whose `data-field` is
 * the error's `field`; the rest, and the detail, in the form's error box. Focuses the first.
 */
/**
 * An API message as an operator reads it beside a field: an emptied box is "required", not
 * "null" (the API's word for the value a form sends for an empty box).
 */
function besideTheField(message) {
  return message === 'must not be null' ? 'is required' : message;
}

export function showProblem(element, error) {
  const box = element.querySelector('.form-error');
  const loose = [];
  let first = null;
  for (const { field: name, message } of error.errors || []) {
    const target = candidates(name).map((candidate) => controlFor(element, candidate)).find(Boolean);
    if (!target) {
      loose.push(`${name}: ${message}`);
      continue;
    }
    target.setAttribute('aria-invalid', 'true');
    const slot = errorSlot(target);
    if (!slot) {
      loose.push(`${name}: ${message}`);
      continue;
    }
    const said = besideTheField(message);
    slot.textContent = slot.textContent ? `${slot.textContent}; ${said}` : said;
    first = first || target;
  }
  if (box) {
    // Each error once: the detail of a problem with one error is often that error's own line.
    const lines = [...new Set([explain(error), ...loose])]
      .filter((line, index, all) => index === 0 || !all[0].endsWith(line));
    if (!(error.errors || []).length || loose.length || !first) {
      box.replaceChildren(...lines.map((line) => h('p', {}, line)));
    } else {
      box.replaceChildren(h('p', {}, 'Please correct the fields marked below.'));
    }
    // What the user can do about it (re-read a record changed elsewhere), beside the words.
    const button = actionButton(error.action);
    if (button) {
      box.appendChild(h('p', {}, button));
      button.focus();
      return;
    }
  }
  // The first field in error in the order of the form, whatever the order of the errors: its
  // control, or for a group (a fieldset of checkboxes, a block of fields) its first visible
  // control; one that is hidden (a section not in use) is passed over.
  const target = [...element.querySelectorAll('[aria-invalid="true"]')].map(focusable).find(Boolean);
  (target || box)?.focus?.();
}

/** `node` if it is a visible, enabled control, else the first such control inside it, or null. */
function focusable(node) {
  const controls = node.matches('input, select, textarea, button') ? [node] : [...node.querySelectorAll('input, select, textarea, button')];
  return controls.find((control) => !control.disabled && control.getClientRects().length > 0) || null;
}

/** A sentence for a Problem (or any error), with what the status means for an operator. */
export function explain(error) {
  const message = error.message || String(error);
  // An error the console has already put in plain words (`stale`, the sign-in throttle).
  if (error.explained) return message;
  switch (error.status) {
    case 403: return `Not allowed: ${message}`;
    case 409: return `Conflict: ${message}`;
    case 412: return `Refused (412 Precondition Failed): ${message}`;
    case 429: return `Too many requests: ${error.retryAfter ? `try again in ${waitText(error.retryAfter)}` : message}.`;
    default: return message;
  }
}

/** How long `Retry-After` seconds are, for a person: seconds up to 90, else whole minutes (rounded up). */
export function waitText(retryAfter) {
  const seconds = Math.max(1, Math.ceil(Number(retryAfter) || 0));
  if (seconds <= 90) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

/**
 * A 412 in plain words: the record (`what`: "site", "record") was changed by someone else
 * since the page read it, so the ETag the change was sent with is out of date. `reread`, when
 * given, is offered as a button beside the explanation (`{label, run}`): it reads the record
 * again, after which the change can be made. Any other error is returned as it is.
 */
export function stale(error, what, reread = null) {
  if (error.status !== 412) return error;
  return Object.assign(new Error(`This ${what} was changed by someone else since you opened it: `
    + `re-read it${reread ? ' with the button here' : ''}, then make your change again.`), {
    status: 412, explained: true, errors: [], action: reread ? { label: `Re-read the ${what}`, run: reread } : null,
  });
}

/** A button for an error's `action` (`{label, run}`), or null. */
function actionButton(action) {
  return action ? h('button', { type: 'button', class: 'action', onclick: action.run }, action.label) : null;
}

/**
 * Shows a line in the status bar (polite live region); `action` (`{label, run}`) adds a button
 * after it, which gets the focus (a keyboard user would not find it otherwise).
 */
export function status(text, kind = 'info', action = null) {
  const bar = document.getElementById('status');
  bar.className = `status ${kind}`;
  const button = actionButton(action);
  bar.replaceChildren(text, ...(button ? [' ', button] : []));
  bar.dataset.at = String(Date.now());
  button?.focus();
}

/**
 * Gives the focus back when an editor closes or a part of the page is drawn again, so that the
 * next Tab goes on from where the user was (not from the top of the page): to `opener` (the
 * control that opened the editor or started the action) if it is still in the page and shown;
 * else to a shown control of the same kind and key or name (a row's button drawn again by a
 * reload);
 * else to `fallback` (an element, or a function giving one, e.g. the heading of the section),
 * made focusable if it is not. Does nothing when the focus is already somewhere else in use.
 */
export function focusBack(opener, fallback = null) {
  const active = document.activeElement;
  if (active && active !== document.body && active !== opener && active.isConnected && shown(active)) return;
  const usable = (node) => node && node.isConnected && shown(node) && !node.disabled && !node.closest('[hidden]');
  let target = usable(opener) ? opener : null;
  if (!target && opener) {
    // Drawn again: the control with the same key (`data-key`, a row's record id: its name may
    // have changed, "Deactivate" now "Reactivate"), else the same name.
    const name = opener.textContent.trim();
    const key = opener.dataset.key;
    const root = document.getElementById('main') || document.body;
    target = [...root.querySelectorAll(opener.tagName)].find((node) => (key ? node.dataset.key === key : node.textContent.trim() === name) && usable(node)) || null;
  }
  if (!target) {
    const node = typeof fallback === 'function' ? fallback() : fallback;
    if (node && node.isConnected) {
      if (!node.matches('a[href], button, input, select, textarea, [tabindex]')) node.setAttribute('tabindex', '-1');
      target = node;
    }
  }
  target?.focus();
}

/** `close()` when Escape is pressed inside `element` (an open editor). */
export function closeOnEscape(element, close) {
  element.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || event.defaultPrevented || element.hidden) return;
    event.preventDefault();
    close();
  });
}

/** Clears the status bar unless it was written in the last moments (by the action that led here). */
export function fadeStatus() {
  const bar = document.getElementById('status');
  if (Date.now() - Number(bar.dataset.at || 0) > 1500) clearStatus();
}

/** Empties the status bar. */
export function clearStatus() {
  const bar = document.getElementById('status');
  bar.className = 'status';
  bar.textContent = '';
}

/**
 * `content` (a table) in a box that scrolls sideways on its own when the table is wider than
 * the page (a narrow screen), so that the page itself never does. A box that scrolls can be
 * focused and scrolled with the keyboard, and is named for screen readers (`label`).
 */
export function scroller(content, label) {
  const box = h('div', { class: 'table-scroll' }, content);
  const sync = () => {
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    if (scrolls) {
      box.setAttribute('tabindex', '0');
      box.setAttribute('role', 'region');
      const name = label || box.closest('section[aria-label]')?.getAttribute('aria-label')
        || document.querySelector('main h1')?.textContent || 'Table';
      box.setAttribute('aria-label', `${name}: table (scrolls sideways)`);
    } else {
      box.removeAttribute('tabindex');
      box.removeAttribute('role');
      box.removeAttribute('aria-label');
    }
  };
  // The box's width changes with the window, the table's as its cells fill in (names read late).
  const observer = new ResizeObserver(sync);
  observer.observe(box);
  observer.observe(content);
  return box;
}

/**
 * A table of `rows` with `columns` `[{title, value: row => node|text}]`, in a `scroller`; with
 * no rows it says `empty` ("None found." for a paged list, which a search may have narrowed).
 */
export function table(columns, rows, caption, empty = 'None.') {
  return scroller(h('table', {},
    caption ? h('caption', {}, caption) : null,
    h('thead', {}, h('tr', {}, columns.map((column) => h('th', { scope: 'col' }, column.title)))),
    h('tbody', {}, rows.length
      ? rows.map((row) => h('tr', {}, columns.map((column) => h('td', {}, column.value(row)))))
      : h('tr', {}, h('td', { colspan: columns.length }, empty)))), caption);
}

/**
 * A table paged on the server: `load(page, pageSize)` gives `{rows, total}`; Previous and Next
 * move one page. `.reload(toFirst)` loads again.
 */
export function pagedTable(columns, load, { pageSize = 20, caption = null } = {}) {
  let current = 1;
  const holder = h('div', { class: 'table-holder' });
  const summary = h('span', { class: 'page-summary', 'aria-live': 'polite' });
  const previous = h('button', { type: 'button', onclick: () => go(current - 1) }, 'Previous page');
  const next = h('button', { type: 'button', onclick: () => go(current + 1) }, 'Next page');
  const element = h('div', { class: 'paged' }, holder, h('div', { class: 'pager' }, previous, summary, next));
  // Only the answer to the latest request is shown: an earlier one that arrives later (a slow
  // search, a page the user has already moved past) is dropped.
  let latest = 0;
  async function go(target) {
    const mine = ++latest;
    try {
      const { rows, total } = await load(target, pageSize);
      if (mine !== latest) return;
      const pages = Math.max(1, Math.ceil(total / pageSize));
      current = target;
      replace(holder, table(columns, rows, caption, 'None found.'));
      summary.textContent = `Page ${current} of ${pages} (${total} ${total === 1 ? 'row' : 'rows'})`;
      previous.disabled = current <= 1;
      next.disabled = current >= pages;
    } catch (error) {
      if (mine !== latest) return;
      // No page is shown: no summary of one, and nothing to move to.
      replace(holder, h('p', { class: 'form-error', role: 'alert' }, explain(error)));
      summary.textContent = '';
      previous.disabled = true;
      next.disabled = true;
    }
  }
  element.reload = (toFirst = false) => go(toFirst ? 1 : current);
  element.reload(true);
  return element;
}

/** A filter bar: the fields and a Search button; `onsearch(values)` with the named values. */
export function filters(fields, onsearch) {
  const element = form(fields.map(([label, control, hint]) => field(label, control, hint)), async () => {
    const values = {};
    for (const control of element.querySelectorAll('[data-field]')) {
      if (control.tagName === 'FIELDSET') continue;
      values[control.dataset.field] = control.type === 'checkbox' ? (control.checked ? 'true' : '') : control.value.trim();
    }
    await onsearch(values);
  }, { label: 'Search' });
  element.classList.add('filters');
  element.setAttribute('role', 'search');
  return element;
}

/** `like:` text for a case-insensitive substring filter, or nothing. */
export function like(value) {
  return value ? `like:${value}` : '';
}

/** A link to a console route (`#/sites/3`). */
export function link(route, text) {
  return h('a', { href: `#${route}` }, text);
}

/** `yyyy-MM-dd` of today (UTC). */
export function today() {
  return new Date().toISOString().slice(0, 10);
}

/** A date-time as the API writes it, shown in the reader's time zone. */
export function when(value) {
  return value ? new Date(value).toLocaleString() : '';
}

/** Copies text to the clipboard; a fallback selects it for Ctrl+C. */
export async function copy(text, target) {
  try {
    await navigator.clipboard.writeText(text);
    status('Copied to the clipboard.', 'ok');
  } catch {
    if (target && target.select) target.select();
    status('Press Ctrl+C to copy the selected key.', 'info');
  }
}

/** A heading for a page, focused so that keyboard and screen reader users land on it. */
export function heading(text) {
  return h('h1', { tabindex: '-1' }, text);
}

/** A read-only definition list of `[label, value]` pairs. */
export function facts(pairs) {
  return h('dl', { class: 'facts' }, pairs.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value ?? '—')]));
}

/** The parameters after `?` in the URL's fragment (`#/sites/new?customerId=3`). */
export function hashQuery() {
  const hash = location.hash;
  const at = hash.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : hash.slice(at + 1));
}

/** `#id` now, the record's name once read (`nameOf`); a link to `route` when given. */
export function named(path, id, show, route = null) {
  if (id === null || id === undefined) return '';
  const text = document.createTextNode(`#${id}`);
  nameOf(path, id, show).then((name) => { text.textContent = `${name} (${id})`; });
  return route ? h('a', { href: `#${route}` }, text) : h('span', {}, text);
}

/** `fn` called once typing has paused for `ms` (search boxes that ask the server). */
export function debounce(fn, ms = 250) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
