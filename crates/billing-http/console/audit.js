// The audit trail (AUDIT_READ): filtered by resource, record, user, action and time, newest
// first, a page at a time; each event's before and after shown as a diff of their members.

import { page } from './api.js';
import { h, replace, input, select, heading, pagedTable, filters, when } from './ui.js';

const RESOURCES = ['users', 'api-keys', 'customers', 'sites', 'inventory-items', 'contract-owners',
  'billing-cycles', 'invoice-templates', 'custom-field-definitions', 'payment-provider-mandates',
  'reference-data-sources', 'reference-data-source-charge-groups', 'charge-groups',
  'charge-group-categories', 'dialstrings', 'call-classes', 'ignored-call-classes',
  'ignored-service-ids', 'currencies', 'locales', 'tax-bands', 'currency-rates', 'adhoc-bill-runs',
  'reference-data'];
const ACTIONS = ['CREATE', 'REPLACE', 'PATCH', 'UPDATE', 'DELETE', 'IMPORT'];

/**
 * Every leaf of a JSON value as `path → value`. Elements of a list of records are named by their
 * id (`siteContacts[id=3].contactName`), so that removing one shows it removed, not every later
 * one renamed; other lists by position (`[1]`).
 */
function flatten(value, path = '', into = new Map()) {
  if (value !== null && typeof value === 'object') {
    const keyed = Array.isArray(value) && value.every((v) => v !== null && typeof v === 'object' && v.id != null);
    const entries = Array.isArray(value)
      ? value.map((v, i) => [keyed ? `[id=${v.id}]` : `[${i}]`, v])
      : Object.entries(value).map(([k, v]) => [path ? `.${k}` : k, v]);
    if (!entries.length) into.set(path || '(record)', Array.isArray(value) ? '[]' : '{}');
    for (const [step, inner] of entries) flatten(inner, `${path}${step}`, into);
  } else {
    into.set(path || '(record)', value === null ? 'null' : JSON.stringify(value));
  }
  return into;
}

/** The members that differ between `before` and `after`, as a table of removed and added values. */
export function diff(before, after) {
  // No before (a create) or no after (a delete) has no members: not an empty record.
  const old = before == null ? new Map() : flatten(before);
  const now = after == null ? new Map() : flatten(after);
  const paths = [...new Set([...old.keys(), ...now.keys()])].filter((path) => old.get(path) !== now.get(path));
  if (!paths.length) return h('p', {}, 'No member changed.');
  return h('table', { class: 'diff' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Member'), h('th', { scope: 'col' }, 'Before'), h('th', { scope: 'col' }, 'After'))),
    h('tbody', {}, paths.map((path) => h('tr', {},
      h('th', { scope: 'row' }, path),
      h('td', { class: old.has(path) ? 'removed' : 'absent' }, old.has(path) ? h('del', {}, old.get(path)) : '—'),
      h('td', { class: now.has(path) ? 'added' : 'absent' }, now.has(path) ? h('ins', {}, now.get(path)) : '—')))));
}

function localToUtc(value) {
  return value ? new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z') : '';
}

export async function auditPage(main) {
  let query = {};
  const list = pagedTable([
    { title: 'When', value: (e) => when(e.occurredAt) },
    { title: 'Who', value: (e) => `${e.username} (${e.userId})` },
    { title: 'Action', value: (e) => e.action },
    { title: 'Resource', value: (e) => e.resource },
    { title: 'Record', value: (e) => String(e.recordId) },
    { title: 'Changes', value: (e) => h('details', {}, h('summary', {}, `Before and after (request ${e.requestId})`), diff(e.before, e.after)) },
  ], (pageNumber, pageSize) => page('/v1/audit-events', { page: pageNumber, pageSize, sort: 'id:desc', ...query }));
  const side = select('timeSide', [['gt', 'after'], ['lt', 'before']], { value: 'gt' });
  const search = filters([
    ['Resource', select('resource', RESOURCES, { blank: 'Any resource' })],
    ['Record id', input('recordId', { type: 'number', min: 1 })],
    ['User id', input('userId', { type: 'number', min: 1 })],
    ['Action', select('action', ACTIONS, { blank: 'Any action' })],
    ['Request id', input('requestId')],
    ['Time is', side],
    ['Time (your time zone)', input('occurredAt', { type: 'datetime-local' })],
  ], async (v) => {
    query = {
      resource: v.resource, recordId: v.recordId, userId: v.userId, action: v.action, requestId: v.requestId,
      occurredAt: v.occurredAt ? `${v.timeSide}:${localToUtc(v.occurredAt)}` : '',
    };
    list.reload(true);
  });
  replace(main, heading('Audit trail'), h('p', {}, 'Every write through the API, newest first.'), search, list);
}
