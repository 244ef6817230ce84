// Record pages (records.js says which): reference data (sources, source charge groups, charge
// groups, dialstrings, call classes, …) and the customer set-up records, each browsed with the
// API's filters a page at a time and created, changed or deleted where the user's roles (and
// for rating data the source's siMaintained) allow; and the rating tester.

import { api, page, patch, can, currentUser } from './api.js';
import {
  h, replace, field, input, select, form, heading, pagedTable, filters, like, status, explain,
  facts, today, link, stale, focusBack, closeOnEscape, numberValue,
} from './ui.js';
import { diffPatch, recordPicker } from './site-form.js';
import { GROUPS, kindOf } from './records.js';

const SI_MAINTAINED = 'The source charge groups, dialstrings, call classes and ignored call classes of such a source '
  + 'change only through the operator\'s feed. Change them in the feed; only the operator can hand a source back to this interface (docs/operations.md).';

/** An API member's name in words: `chargeGroupStartDate` → `Charge group start date`. */
function inWords(key) {
  const words = key.replace(/([A-Z])/g, ' $1').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** One record of a kind, in words: `Dialstrings` → `dialstring`, `Call classes` → `call class`. */
function oneOf(kind) {
  return kind.title.toLowerCase().replace(/ies$/, 'y').replace(/sses$/, 'ss').replace(/s$/, '');
}

function filterControl([name, , type, codes]) {
  if (type === 'bool') return select(name, [['true', 'yes'], ['false', 'no']], { blank: 'either' });
  if (type === 'enum') return select(name, codes, { blank: 'any' });
  if (type === 'id') return input(name, { type: 'number', min: 1 });
  if (type === 'gtn') return input(name, { type: 'date' });
  return input(name);
}

function filterValue(type, value) {
  if (!value) return '';
  if (type === 'like') return like(value);
  if (type === 'gtn') return `gtn:${value}`;
  return value;
}

function get(record, path) {
  return path.split('.').reduce((value, key) => (value == null ? value : value[key]), record);
}

/** The form of a kind's writable members; `.value()` gives the body (`locale.id` nests). */
function recordFields(kind, record) {
  const controls = kind.fields.map((spec) => {
    const [name, label, type, required] = spec;
    const current = record ? get(record, name) : (name === 'startDate' ? today() : null);
    const options = spec[4];
    const control = type === 'bool'
      ? select(name, [['false', 'no'], ['true', 'yes']], { value: String(!!current) })
      : type === 'enum' ? select(name, options, { value: current ?? options[0] })
      : input(name, { type: type === 'id' ? 'number' : type, value: current ?? '', required, min: type === 'id' ? 1 : null });
    // A member the API takes only on creation is shown, not offered, when a record is changed.
    if (record && spec[5]?.createOnly) control.disabled = true;
    return { name, type, control, label };
  });
  const element = h('div', { class: 'grid' }, controls.map(({ control, label }) => field(label, control)));
  element.value = () => {
    const body = {};
    for (const { name, type, control } of controls) {
      const raw = control.value.trim();
      let value = raw === '' ? null : raw;
      if (type === 'id') value = numberValue(control);
      if (type === 'bool') value = raw === 'true';
      const [outer, inner] = name.split('.');
      if (inner) body[outer] = { [inner]: value };
      else body[outer] = value;
    }
    return body;
  };
  return element;
}

/**
 * A 412 explained: the source's siMaintained, or a record changed since it was read (`stale`,
 * with `reread` offered as a button when given).
 */
function explain412(error, kind, reread = null) {
  if (error.status !== 412) return error;
  if (!/siMaintained/.test(error.message)) return stale(error, 'record', reread);
  return Object.assign(new Error(`${error.message}. ${SI_MAINTAINED}`), { status: 412, errors: error.errors, kind: kind.title });
}

/** The page of one kind of record of a group (`#/reference-data/dialstrings`, `#/setup/billing-cycles`). */
export async function recordsPage(main, { group: groupName, kind: name }) {
  const kind = kindOf(groupName, name);
  const group = kind && GROUPS[groupName];
  if (!kind) throw Object.assign(new Error(`The console has no page for ${groupName}/${name}.`), { status: 404 });
  const KINDS = group.kinds;
  const writable = can(kind.write);
  // Records that belong to a contract owner (`ownerOf`): a user limited to some owners may
  // change only theirs, and create none.
  const limitedTo = kind.ownerOf ? (currentUser()?.contractOwnerIds || []) : [];
  const mayChange = (row) => writable && (!limitedTo.length || limitedTo.includes(kind.ownerOf(row)));
  const mayCreate = writable && !limitedTo.length;
  let query = {};
  // The id first: the forms of other kinds ask for it (a source id, a charge group id).
  const columns = [{ title: 'Id', value: (row) => String(row.id) },
    ...kind.columns.map(([member, title, show]) => ({ title, value: (row) => (show ? show(row[member]) : String(row[member] ?? '')) }))];
  const rowName = (row) => {
    const first = row[kind.columns[0][0]];
    return first !== null && typeof first === 'object' ? `${first.code || first.name || ''} (${row.id})` : first;
  };
  if (writable) columns.push({ title: 'Change', value: (row) => (mayChange(row) ? h('button', { type: 'button', 'data-key': `change-${row.id}`, onclick: (event) => edit(row, event.currentTarget) }, `Change ${rowName(row)}`) : 'not yours to change') });
  const list = pagedTable(columns, (pageNumber, pageSize) => page(kind.path, { page: pageNumber, pageSize, sort: kind.sort, ...query }));
  const search = filters(kind.filters.map((spec) => [spec[1], filterControl(spec)]), async (values) => {
    query = Object.fromEntries(kind.filters.map(([param, , type]) => [param, filterValue(type, values[param])]));
    list.reload(true);
  });
  const editor = h('section', { class: 'panel', hidden: true, 'aria-label': 'Change a record' });
  /** Closes the editor (Cancel, Escape): the focus goes back to the row's Change button. */
  let closeEditor = () => {};
  closeOnEscape(editor, () => closeEditor());
  // Where the focus goes when the row's button is gone (the record deleted): the kind's heading.
  const kindHeading = h('h2', {}, kind.title);

  async function edit(row, opener) {
    const answer = await api('GET', `${kind.path}/${row.id}`).catch((error) => { status(explain(error), 'error'); return null; });
    if (!answer) return;
    const fields = recordFields(kind, answer.body);
    const back = () => focusBack(opener, kindHeading);
    const close = () => { editor.hidden = true; replace(editor); };
    closeEditor = () => { close(); back(); };
    // A record changed elsewhere since it was opened: read it again (what was typed is lost),
    // and the list behind it, which shows it too.
    const reread = () => { list.reload(); return edit(row, opener); };
    replace(editor, h('h2', {}, `Change ${oneOf(kind)} ${row.id}`), form([fields], async () => {
      const operations = diffPatch(answer.body, fields.value());
      try {
        if (operations.length) await patch(`${kind.path}/${row.id}`, operations, answer.etag);
      } catch (error) {
        throw explain412(error, kind, reread);
      }
      status(operations.length ? 'Saved.' : 'Nothing changed.', 'ok');
      close();
      await list.reload();
      back();
    }, { label: 'Save', extra: [
      h('button', { type: 'button', onclick: () => remove(row, answer.etag, close, back, reread) }, 'Delete'),
      h('button', { type: 'button', onclick: () => closeEditor() }, 'Cancel'),
    ] }));
    editor.hidden = false;
    editor.querySelector('input:not(:disabled), select:not(:disabled)')?.focus();
  }

  async function remove(row, etag, close, back, reread) {
    if (!window.confirm(`Delete ${oneOf(kind)} ${row.id}?`)) return;
    try {
      await api('DELETE', `${kind.path}/${row.id}`, { headers: { 'If-Match': etag } });
      status('Deleted.', 'ok');
      close();
      await list.reload();
      back();
    } catch (error) {
      const explained = explain412(error, kind, reread);
      status(explain(explained), 'error', explained.action);
    }
  }

  let creator = null;
  if (mayCreate) {
    let fields = recordFields(kind, null);
    const createForm = form([fields], async () => {
      try {
        await api('POST', kind.path, { body: fields.value() });
      } catch (error) {
        throw explain412(error, kind);
      }
      status('Created.', 'ok');
      // A fresh form for the next record (the start date back to today, choices to the first).
      const fresh = recordFields(kind, null);
      fields.replaceWith(fresh);
      fields = fresh;
      list.reload(true);
    }, { label: 'Create' });
    creator = h('section', { class: 'panel' }, h('h2', {}, `New ${oneOf(kind)}`), createForm);
  }
  replace(main, heading(group.title),
    h('nav', { 'aria-label': `Kinds of ${group.title.toLowerCase()}`, class: 'tabs' }, h('ul', {}, Object.entries(KINDS).map(([key, other]) =>
      h('li', {}, h('a', { href: `#/${groupName}/${key}`, 'aria-current': key === name ? 'page' : null }, other.title))))),
    kindHeading,
    kind.si ? h('p', { class: 'hint' }, 'Records of a source maintained by the operator\'s feed (siMaintained = true) cannot be changed here: the API answers 412.') : null,
    writable ? null : h('p', { class: 'hint' }, 'Your roles let you read these records, not change them.'),
    search, list, editor, creator);
}

export async function ratingPage(main) {
  const source = recordPicker('referenceDataSourceId', 'Reference data source', '/v1/reference-data-sources', { searchOn: 'name', show: (r) => r.name });
  const date = input('date', { type: 'date', value: today() });
  const number = input('dialledNumber', { type: 'tel', placeholder: '+44 7712 345678' });
  const callClass = input('callClass');
  const outcome = h('section', { class: 'panel', 'aria-live': 'polite', id: 'rating-outcome', hidden: true });
  const element = form([
    source,
    h('div', { class: 'grid' }, field('Date', date, 'Empty: today (UTC).'), field('Dialled number', number, 'Digits, spaces and a leading +.'), field('Or a call class', callClass)),
  ], async () => {
    // The last outcome goes as soon as another lookup is asked for: a refused one leaves none.
    outcome.hidden = true;
    replace(outcome);
    const item = {};
    if (number.value.trim()) item.dialledNumber = number.value.trim();
    if (callClass.value.trim()) item.callClass = callClass.value.trim();
    if (!item.dialledNumber && !item.callClass) {
      const message = 'type a dialled number or a call class';
      throw Object.assign(new Error(`Nothing to rate: ${message}.`), { errors: [{ field: 'dialledNumber', message }] });
    }
    const body = { referenceDataSourceId: Number(source.control.value) || null, date: date.value || null, items: [item] };
    const answer = (await api('POST', '/v1/rating/lookups', { body })).body;
    const result = answer.results[0];
    if (result.error) throw Object.assign(new Error(result.error.message), { errors: [{ field: result.error.field, message: result.error.message }] });
    let summary = null;
    const type = result.outcome === 'DIALSTRING' ? 'DIALSTRING' : (result.outcome === 'CALL_CLASS' ? 'CALL_CLASS' : null);
    const id = type === 'DIALSTRING' ? result.dialstringId : result.callClassId;
    if (type && id) {
      const rows = (await page(`/v1/reference-data-summary/${type}/${id}`, { page: 1, pageSize: 1 })).rows;
      summary = rows[0] || null;
    }
    // Each member in words, its API name beside it for who scripts against it; unset is `—`.
    const described = (record) => facts(Object.entries(record).map(([key, value]) => [
      h('span', {}, inWords(key), ' ', h('code', {}, key)), value === null ? '—' : String(value),
    ]));
    const sourceName = source.control.selectedOptions[0]?.textContent || `source ${answer.referenceDataSourceId}`;
    replace(outcome,
      h('h2', {}, `Outcome: ${result.outcome}`),
      h('p', {}, `Rated against ${sourceName} on ${answer.date}.`),
      described(Object.fromEntries(Object.entries(result).filter(([key]) => key !== 'outcome'))),
      summary ? [h('h3', {}, 'Summary row'), described(summary)] : null,
      type === 'DIALSTRING' ? h('p', {}, link(`/reference-data/dialstrings`, 'Browse dialstrings')) : null);
    outcome.hidden = false;
  }, { label: 'Rate' });
  element.id = 'rating-form';
  replace(main, heading('Rating tester'),
    h('p', {}, 'Rates one dialled number (or call class) the way the service rates usage: longest dialstring prefix in force on the date, else the call class; ignored service ids and call classes first.'),
    element, outcome);
}
