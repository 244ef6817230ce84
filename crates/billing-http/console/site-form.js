// The site form (create and edit) and the JSON Patch an edit sends: one document with its
// owned parts (address, invoice details, contacts, custom fields), each control named by the
// member's path (`siteAddress.postcode`, `siteContacts[1].contactEmailAddress`) so that the
// service's own field errors land beside the field they name.

import { api, page, nameOf } from './api.js';
import { h, replace, field, input, numberValue, select, like, today, debounce } from './ui.js';

export const CONTACT_ROLES = ['ACCOUNTS', 'TECHNICAL', 'SALES', 'GENERAL'];
export const RECEIVE_BY = ['EMAIL', 'POST', 'EMAIL_AND_POST'];
export const PAYMENT_METHODS = ['CHEQUE', 'DIRECT_DEBIT', 'CANCELLED_DD', 'CANCELLED_CARD', 'CREDIT_CARD',
  'ONLINE_WALLET', 'BACS', 'POSTAL_PAYMENT_CARD', 'PROVIDER_A', 'PROVIDER_B',
  'PROVIDER_B_INSTANT_BANK_PAYMENTS', 'PROVIDER_C', 'PROVIDER_C_CARD', 'PROVIDER_C_DD', 'PROVIDER_D',
  'FAST_PAY', 'OTHER'];

/** Text of a control: `null` when empty (an unset optional member). */
function text(control) {
  const value = control.value.trim();
  return value === '' ? null : value;
}

/**
 * A select of records of `path`, a page at a time, refined by a search box on `searchOn`. A
 * chosen record the page does not hold (beyond the first 50) is read by its id for its name.
 * `fixed` (with `hint`): the choice is shown but cannot be changed (no search box).
 */
export function recordPicker(name, label, path, { searchOn, show, value = null, params = {}, only = null, fixed = false, hint = null }) {
  const list = select(name, [], { blank: '(choose)' });
  list.disabled = fixed;
  const search = input(`${name}Search`, { type: 'search', placeholder: 'contains…' });
  let latest = 0;
  async function load() {
    const mine = ++latest;
    const { rows } = only
      // The few records the user is limited to, each read by its id.
      ? { rows: (await Promise.all(only.map((id) => api('GET', `${path}/${id}`).then((a) => a.body).catch(() => null)))).filter(Boolean) }
      : await page(path, { page: 1, pageSize: 50, sort: searchOn, [searchOn]: like(search.value.trim()), ...params });
    if (mine !== latest) return; // a later search's answer wins, whenever this one arrives
    const chosen = list.value || (value === null ? '' : String(value));
    const options = rows.map((row) => [String(row.id), `${show(row)} (${row.id})`]);
    let missing = null;
    if (chosen && !options.some(([id]) => id === chosen)) {
      missing = h('option', { value: chosen, selected: true }, `#${chosen}`);
      // `#2` until its name is read (`#2` stays if the user may not read it).
      const known = await nameOf(path, chosen, show);
      if (mine !== latest) return;
      if (!String(known).startsWith('#')) missing.textContent = `${known} (${chosen})`;
    }
    replace(list, h('option', { value: '' }, '(choose)'), missing,
      options.map(([id, text]) => h('option', { value: id, selected: id === chosen }, text)));
  }
  search.addEventListener('input', debounce(() => { load().catch(() => {}); }));
  const ready = load().catch(() => {});
  const element = h('div', { class: 'picker grid' }, only || fixed ? null : field(`Find ${label.toLowerCase()}`, search), field(label, list, hint));
  element.control = list;
  element.ready = ready;
  return element;
}

function addressFields(prefix, address = {}) {
  const a = address || {};
  const controls = {
    businessName: input(`${prefix}.businessName`, { value: a.businessName }),
    address1: input(`${prefix}.address1`, { value: a.address1, required: true }),
    address2: input(`${prefix}.address2`, { value: a.address2 }),
    address3: input(`${prefix}.address3`, { value: a.address3 }),
    town: input(`${prefix}.town`, { value: a.town, required: true }),
    county: input(`${prefix}.county`, { value: a.county }),
    postcode: input(`${prefix}.postcode`, { value: a.postcode, required: true }),
    country: input(`${prefix}.country`, { value: a.country || 'GB', required: true, size: 2, maxlength: 2 }),
  };
  const labels = {
    businessName: 'Business name', address1: 'Address line 1', address2: 'Address line 2',
    address3: 'Address line 3', town: 'Town', county: 'County', postcode: 'Postcode',
    country: 'Country (ISO code, e.g. GB)',
  };
  const element = h('div', { class: 'grid' }, Object.entries(controls).map(([key, control]) => field(labels[key], control)));
  element.value = () => Object.fromEntries(Object.entries(controls).map(([key, control]) => [key, text(control)]));
  return element;
}

let contactGroup = 0;

function contactFields(index, contact, group, onremove) {
  const c = contact || {};
  const p = `siteContacts[${index}]`;
  const name = input(`${p}.contactName`, { value: c.contactName, required: true });
  const role = select(`${p}.contactRole`, CONTACT_ROLES, { value: c.contactRole || 'ACCOUNTS' });
  const email = input(`${p}.contactEmailAddress`, { type: 'email', value: c.contactEmailAddress });
  const phone = input(`${p}.contactTelephoneNumber`, { type: 'tel', value: c.contactTelephoneNumber });
  const receive = select(`${p}.receiveInvoiceBy`, RECEIVE_BY, { value: c.receiveInvoiceBy, blank: '(not set)' });
  const mark = h('input', { type: 'radio', name: group, id: `${group}-${index}`, checked: !!c.contactNameToAppearOnInvoice, 'data-field': `${p}.contactNameToAppearOnInvoice` });
  const element = h('fieldset', { class: 'contact' },
    h('legend', {}, `Contact ${index + 1}`),
    h('div', { class: 'grid' },
      field('Name', name), field('Role', role), field('E-mail', email), field('Telephone', phone),
      field('Receives invoices by', receive, 'Required for the invoice contact.')),
    h('div', { class: 'field' }, h('span', { class: 'check' }, mark, h('label', { for: mark.id }, 'Invoice contact (the name on invoices)'))),
    h('button', { type: 'button', onclick: onremove }, `Remove contact ${index + 1}`),
    h('p', { class: 'error', 'aria-live': 'polite' }));
  element.value = () => ({
    contactName: text(name),
    contactRole: role.value,
    contactEmailAddress: text(email),
    contactTelephoneNumber: text(phone),
    receiveInvoiceBy: receive.value || null,
    // Sent only when chosen: a site created with none chosen gets the first contact (the
    // service's default when no contact gives the flag), and an edit moves the mark by
    // marking the new contact, which unmarks the previous one.
    ...(mark.checked ? { contactNameToAppearOnInvoice: true } : {}),
  });
  return element;
}

function customFieldFields(index, assigned, definitions, onremove) {
  const a = assigned || {};
  const p = `assignedCustomFields[${index}]`;
  const options = definitions.map((d) => [String(d.id), d.label]);
  // A stored definition beyond the loaded ones stays the choice (the field is kept as it is).
  const stored = a.customFieldDefinitionId == null ? null : String(a.customFieldDefinitionId);
  if (stored && !options.some(([id]) => id === stored)) options.unshift([stored, `#${stored}`]);
  const definition = select(`${p}.customFieldDefinitionId`, options, { value: stored, blank: '(choose)' });
  const value = input(`${p}.value`, { value: a.value });
  const element = h('fieldset', { class: 'custom-field' }, h('legend', {}, `Custom field ${index + 1}`),
    h('div', { class: 'grid' }, field('Field', definition), field('Value', value)),
    h('button', { type: 'button', onclick: onremove }, `Remove custom field ${index + 1}`));
  element.value = () => ({ customFieldDefinitionId: numberValue(definition), value: text(value) });
  return element;
}

/**
 * The index in the stored list that an element of an owned list in a form's value came from
 * (a symbol: never sent, `JSON.stringify` leaves it out); absent on an element the user added.
 * `diffPatch` uses it to remove exactly the elements the user removed, so that every element
 * kept keeps its id and the members the form does not show.
 */
export const ORIGIN = Symbol('origin');

/**
 * A list of fieldsets that can grow and shrink; `.value()` gives the elements' values, each
 * tagged with its `ORIGIN` (its index in `stored`). `placeholder` starts an empty list with one
 * new, blank element.
 */
function repeated(title, stored, make, addLabel, { placeholder = false } = {}) {
  // Each slot: where it came from in `stored` (null: added here) and what to draw it with.
  let slots = stored.map((item, origin) => ({ origin, item }));
  if (!slots.length && placeholder) slots.push({ origin: null, item: null });
  const holder = h('div', {});
  const add = h('button', { type: 'button', onclick: () => {
    keep();
    slots.push({ origin: null, item: null });
    draw();
    parts[parts.length - 1].querySelector('input, select').focus();
  } }, addLabel);
  const element = h('section', { class: 'repeated', 'aria-label': title }, h('h3', {}, title), holder, add);
  let parts = [];
  /** What the user typed so far, kept across a redraw. */
  function keep() { slots = slots.map((slot, index) => ({ origin: slot.origin, item: parts[index].value() })); }
  function current() {
    return parts.map((part, index) => {
      const value = part.value();
      if (slots[index].origin !== null) value[ORIGIN] = slots[index].origin;
      return value;
    });
  }
  function draw() {
    parts = slots.map((slot, index) => make(index, slot.item, () => {
      keep();
      slots.splice(index, 1);
      draw();
      add.focus();
    }));
    replace(holder, parts);
  }
  draw();
  element.value = current;
  return element;
}

/**
 * The site form: `site` is the stored record (edit) or null (create). Returns the element with
 * `.value()`, the document the form describes (every managed member; empty ones null).
 */
export async function siteForm(site, { customerId = null } = {}) {
  const s = site || {};
  const definitions = (await page('/v1/custom-field-definitions', { page: 1, pageSize: 100, sort: 'label' })).rows;
  const customer = site ? null : recordPicker('customerId', 'Customer', '/v1/customers', { searchOn: 'customerName', show: (row) => row.customerName, value: customerId });
  const name = input('siteName', { value: s.siteName, required: true });
  const reference = input('siteReference', { value: s.siteReference, required: true });
  const tag = input('matchmakerMatchingTag', { value: s.matchmakerMatchingTag });
  const start = input('startDate', { type: 'date', value: s.startDate || today(), required: true });
  const address = addressFields('siteAddress', s.siteAddress);
  const details = s.siteInvoiceDetails || {};
  const hasDetails = !site || !!s.siteInvoiceDetails;
  const routeOwn = h('input', { type: 'radio', name: 'invoice-route', id: 'route-own', checked: hasDetails });
  const routeOther = h('input', { type: 'radio', name: 'invoice-route', id: 'route-other', checked: !hasDetails });
  // With the invoices consolidated to another site the invoice details are hidden: the API's
  // "siteInvoiceDetails: is required unless siteIdReceivingInvoice names…" (no receiving site
  // given) is shown beside the receiving site.
  const receiving = input('siteIdReceivingInvoice', { type: 'number', min: 1, value: s.siteIdReceivingInvoice, 'data-errors-for': 'siteInvoiceDetails' });
  // The API sets a site's invoice template on creation only (of its invoice details): once
  // stored it is shown, not offered.
  const templateFixed = !!(site && s.siteInvoiceDetails);
  const template = recordPicker('siteInvoiceDetails.invoiceTemplateId', 'Invoice template', '/v1/invoice-templates', {
    searchOn: 'name', show: (row) => row.name, value: details.invoiceTemplateId, params: { type: 'INVOICE' },
    fixed: templateFixed, hint: templateFixed ? 'Set on creation only: it cannot be changed.' : null,
  });
  const method = select('siteInvoiceDetails.paymentMethod', PAYMENT_METHODS, { value: details.paymentMethod || 'CHEQUE' });
  // 30 days unless stored invoice details chose a payment day instead (a consolidated site
  // switched to its own invoice details starts from 30, as a new site does).
  const terms = input('siteInvoiceDetails.paymentTermsInDays', { type: 'number', min: 0, max: 365, value: details.paymentTermsInDays ?? (site?.siteInvoiceDetails ? '' : 30) });
  const day = input('siteInvoiceDetails.preferredPaymentDay', { type: 'number', min: 1, max: 28, value: details.preferredPaymentDay });
  const mandate = input('siteInvoiceDetails.mandateReference', { value: details.mandateReference });
  const thirdParty = input('siteInvoiceDetails.thirdPartyCustomerReference', { value: details.thirdPartyCustomerReference });
  const group = `invoice-contact-${++contactGroup}`;
  const contacts = repeated('Contacts', s.siteContacts || [],
    (index, contact, remove) => contactFields(index, contact, group, remove), 'Add a contact', { placeholder: true });
  const custom = repeated('Custom fields', s.assignedCustomFields || [],
    (index, assigned, remove) => customFieldFields(index, assigned, definitions, remove), 'Add a custom field');
  const detailsBox = h('div', { class: 'grid', 'data-field': 'siteInvoiceDetails' },
    template, field('Payment method', method, 'PROVIDER_B, PROVIDER_C and PROVIDER_D need a mandate reference.'),
    field('Payment terms (days)', terms, '0 to 365; this or a preferred payment day.'),
    field('Preferred payment day', day, '1 to 28.'),
    field('Mandate reference', mandate), field('Third-party customer reference', thirdParty, 'Needed for PROVIDER_C.'));
  const element = h('div', { class: 'site-form' },
    customer,
    h('div', { class: 'grid' }, field('Site name', name, '1 to 100 characters.'), field('Site reference', reference),
      field('Matchmaker matching tag', tag), site ? null : field('Start date', start)),
    h('section', { 'aria-label': 'Site address' }, h('h3', {}, 'Address'), address),
    h('section', { 'aria-label': 'Invoices' }, h('h3', {}, 'Invoices'),
      h('fieldset', { class: 'checks', 'data-field': 'invoiceRoute', 'data-errors-for': 'siteIdReceivingInvoice' }, h('legend', {}, 'Invoices are'),
        h('span', { class: 'check' }, routeOwn, h('label', { for: routeOwn.id }, 'sent from this site (its own invoice details)')),
        h('span', { class: 'check' }, routeOther, h('label', { for: routeOther.id }, 'consolidated to another site')),
        h('p', { class: 'error', 'aria-live': 'polite' })),
      field('Site receiving the invoices (id)', receiving, 'The sites list shows each site\'s id.'),
      detailsBox),
    contacts, custom);
  function syncRoute() {
    detailsBox.hidden = !routeOwn.checked;
    receiving.closest('.field').hidden = routeOwn.checked;
  }
  routeOwn.addEventListener('change', syncRoute);
  routeOther.addEventListener('change', syncRoute);
  syncRoute();
  element.value = () => {
    const document = {
      siteName: text(name),
      siteReference: text(reference),
      matchmakerMatchingTag: text(tag),
      siteAddress: address.value(),
      siteIdReceivingInvoice: routeOwn.checked ? null : numberValue(receiving),
      siteInvoiceDetails: routeOwn.checked ? {
        invoiceTemplateId: numberValue(template.control),
        paymentMethod: method.value,
        paymentTermsInDays: numberValue(terms),
        preferredPaymentDay: numberValue(day),
        mandateReference: text(mandate),
        thirdPartyCustomerReference: text(thirdParty),
      } : null,
      siteContacts: contacts.value(),
      assignedCustomFields: custom.value(),
    };
    if (!site) {
      document.customerId = numberValue(customer.control);
      document.startDate = text(start);
    }
    return document;
  };
  return element;
}

function same(a, b) {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The JSON Patch from `before` (the stored record) to `after` (what the form holds), over the
 * members `after` names only (ids, stamps and derived members are never sent): nested objects
 * member by member, owned lists element by element (`listPatch`).
 */
export function diffPatch(before, after, path = '') {
  const operations = [];
  if (isObject(before) && isObject(after)) {
    for (const [key, value] of Object.entries(after)) {
      const pointer = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!(key in before)) operations.push({ op: 'add', path: pointer, value });
      else operations.push(...diffPatch(before[key], value, pointer));
    }
  } else if (Array.isArray(before) && Array.isArray(after) && after.every(isObject)) {
    operations.push(...listPatch(before, after, path));
  } else if (!same(before, after)) {
    operations.push({ op: 'replace', path, value: after });
  }
  return operations;
}

/**
 * An owned list: each element of `after` says by its `ORIGIN` which stored element it is (none:
 * a new one). The stored elements not kept are removed by their stored index, highest first;
 * a kept element is then changed member by member where it now stands (moved first if the
 * form reordered it), so it keeps its id and every member the form does not show; new elements
 * are inserted where the form has them. A list whose elements carry no `ORIGIN` may only grow
 * (its elements matched by position): which element a shorter one lost cannot be told.
 */
function listPatch(before, after, path) {
  const tagged = after.some((element) => ORIGIN in element);
  if (!tagged && after.length < before.length) {
    throw new Error(`The console cannot tell which elements of ${path} were removed; nothing was sent.`);
  }
  const origins = after.map((element, index) => {
    if (!tagged) return index < before.length ? index : null;
    const origin = element[ORIGIN];
    return Number.isInteger(origin) && origin >= 0 && origin < before.length ? origin : null;
  });
  const kept = new Set(origins.filter((origin) => origin !== null));
  if (kept.size !== origins.filter((origin) => origin !== null).length) {
    throw new Error(`The console lists an element of ${path} twice; nothing was sent.`);
  }
  const operations = [];
  for (let index = before.length - 1; index >= 0; index -= 1) {
    if (!kept.has(index)) operations.push({ op: 'remove', path: `${path}/${index}` });
  }
  // The list as the operations so far leave it: stored indexes of the kept elements (null: new).
  const working = before.map((_, index) => index).filter((index) => kept.has(index));
  after.forEach((element, index) => {
    const origin = origins[index];
    if (origin === null) {
      operations.push({ op: 'add', path: index === working.length ? `${path}/-` : `${path}/${index}`, value: element });
      working.splice(index, 0, null);
      return;
    }
    const at = working.indexOf(origin);
    if (at !== index) {
      operations.push({ op: 'move', from: `${path}/${at}`, path: `${path}/${index}` });
      working.splice(at, 1);
      working.splice(index, 0, origin);
    }
    operations.push(...diffPatch(before[origin], element, `${path}/${index}`));
  });
  return operations;
}
