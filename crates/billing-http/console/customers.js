// Customers and sites: searched with the API's list filters a page at a time, a site shown
// whole, created and edited with the service's field errors beside the fields, ended with
// the cascade to its inventory.

import { api, page, patch, can, currentUser } from './api.js';
import {
  h, replace, field, input, select, form, heading, pagedTable, filters, like, link, status,
  explain, when, facts, table, today, hashQuery, checkboxes, named, stale, focusBack, closeOnEscape, numberValue,
} from './ui.js';
import { siteForm, diffPatch, recordPicker } from './site-form.js';

const writable = () => can('CUSTOMERS_WRITE');

/** The most records a filter offers by name; with more, the filter takes an id. */
const CHOICES = 100;

/**
 * A filter on a record of `path` (contract owners, billing cycles): a choice of them by name,
 * the first 100 by name (one page, read on the server); with more, the record's id typed in.
 * Returns `[label, control]` for `filters`.
 */
async function recordFilter(label, name, path) {
  const { rows, total } = await page(path, { page: 1, pageSize: CHOICES, sort: 'name', fields: 'id,name' });
  if (total > CHOICES) return [`${label} (id)`, input(name, { type: 'number' })];
  return [label, select(name, rows.map((row) => [String(row.id), `${row.name} (${row.id})`]), { blank: 'Any' })];
}

export async function customersPage(main) {
  let query = {};
  const list = pagedTable([
    { title: 'Name', value: (c) => link(`/customers/${c.id}`, c.customerName) },
    { title: 'Reference', value: (c) => c.customerReference },
    { title: 'Contract owner', value: (c) => named('/v1/contract-owners', c.contractOwnerId, (r) => r.name) },
    { title: 'Billing cycle', value: (c) => named('/v1/billing-cycles', c.billingCycleId, (r) => r.name) },
    { title: 'Start', value: (c) => c.startDate },
    { title: 'End', value: (c) => c.endDate || '' },
  ], (pageNumber, pageSize) => page('/v1/customers', { page: pageNumber, pageSize, sort: 'customerName', ...query }));
  const search = filters([
    ['Name contains', input('customerName')],
    ['Reference contains', input('customerReference')],
    await recordFilter('Contract owner', 'contractOwnerId', '/v1/contract-owners'),
    await recordFilter('Billing cycle', 'billingCycleId', '/v1/billing-cycles'),
    ['Still in force after (date)', input('endDate', { type: 'date' })],
  ], async (v) => {
    query = {
      customerName: like(v.customerName), customerReference: like(v.customerReference),
      contractOwnerId: v.contractOwnerId, billingCycleId: v.billingCycleId, endDate: v.endDate ? `gtn:${v.endDate}` : '',
    };
    list.reload(true);
  });
  replace(main, heading('Customers'), search, list, writable() ? await newCustomer(list) : null);
}

async function newCustomer(list) {
  const name = input('customerName', { required: true });
  const reference = input('customerReference', { required: true });
  // A user limited to contract owners may create customers for those only: offer just them.
  const own = currentUser().contractOwnerIds;
  const owner = recordPicker('contractOwnerId', 'Contract owner', '/v1/contract-owners', { searchOn: 'name', show: (r) => r.name, only: own.length ? own : null });
  const cycle = recordPicker('billingCycleId', 'Billing cycle', '/v1/billing-cycles', { searchOn: 'name', show: (r) => r.name });
  const start = input('startDate', { type: 'date', value: today(), required: true });
  const element = form([
    h('div', { class: 'grid' }, field('Customer name', name), field('Customer reference', reference), field('Start date', start)),
    owner, cycle,
  ], async () => {
    const created = await api('POST', '/v1/customers', { body: {
      customerName: name.value.trim(), customerReference: reference.value.trim(),
      contractOwnerId: Number(owner.control.value) || null, billingCycleId: Number(cycle.control.value) || null,
      startDate: start.value || null,
    } });
    status(`Customer ${created.body.customerName} created.`, 'ok');
    location.hash = `#/customers/${created.body.id}`;
  }, { label: 'Create customer' });
  return h('section', { class: 'panel' }, h('h2', {}, 'New customer'), element);
}

export async function customerPage(main, { id }) {
  const answer = await api('GET', `/v1/customers/${id}`);
  const customer = answer.body;
  const sites = pagedTable(siteColumns(), (pageNumber, pageSize) => page('/v1/sites', { page: pageNumber, pageSize, customerId: id, sort: 'siteName' }));
  let editor = null;
  if (writable()) {
    const name = input('customerName', { value: customer.customerName, required: true });
    const reference = input('customerReference', { value: customer.customerReference, required: true });
    const end = input('endDate', { type: 'date', value: customer.endDate });
    // A user limited to contract owners may move the customer only between those.
    const own = currentUser().contractOwnerIds;
    const owner = recordPicker('contractOwnerId', 'Contract owner', '/v1/contract-owners', {
      searchOn: 'name', show: (r) => r.name, value: customer.contractOwnerId, only: own.length ? own : null,
    });
    const cycle = recordPicker('billingCycleId', 'Billing cycle', '/v1/billing-cycles', { searchOn: 'name', show: (r) => r.name, value: customer.billingCycleId });
    editor = h('section', { class: 'panel' }, h('h2', {}, 'Change the customer'), form([
      h('div', { class: 'grid' }, field('Customer name', name), field('Customer reference', reference), field('End date', end)),
      owner, cycle,
    ], async () => {
      const ops = diffPatch(customer, {
        customerName: name.value.trim(), customerReference: reference.value.trim(), endDate: end.value || null,
        contractOwnerId: numberValue(owner.control), billingCycleId: numberValue(cycle.control),
      });
      if (ops.length) await patch(`/v1/customers/${id}`, ops, answer.etag);
      status('Customer saved.', 'ok');
      customerPage(main, { id });
    }));
  }
  replace(main, heading(`Customer ${customer.customerName}`),
    facts([
      ['Reference', customer.customerReference], ['Contract owner', named('/v1/contract-owners', customer.contractOwnerId, (r) => r.name)],
      ['Sub-brand', customer.contractOwnerSubBrandId ? String(customer.contractOwnerSubBrandId) : null],
      ['Billing cycle', named('/v1/billing-cycles', customer.billingCycleId, (r) => r.name)], ['Start', customer.startDate], ['End', customer.endDate],
      ['Created', when(customer.createdDate)], ['Updated', when(customer.updatedDate)],
    ]),
    h('h2', {}, 'Sites'),
    writable() ? h('p', {}, link(`/sites/new?customerId=${id}`, 'New site for this customer')) : null,
    sites, editor);
  main.querySelector('h1').focus();
}

function siteColumns() {
  return [
    // The id: the site form asks for the site receiving the invoices by it.
    { title: 'Id', value: (s) => String(s.id) },
    { title: 'Site', value: (s) => link(`/sites/${s.id}`, s.siteName) },
    { title: 'Reference', value: (s) => s.siteReference },
    { title: 'Customer', value: (s) => named('/v1/customers', s.customerId, (r) => r.customerName, `/customers/${s.customerId}`) },
    { title: 'Town', value: (s) => (s.siteAddress ? s.siteAddress.town : '') },
    { title: 'Payment', value: (s) => (s.siteInvoiceDetails ? s.siteInvoiceDetails.paymentMethod : `to site ${s.siteIdReceivingInvoice}`) },
    { title: 'Start', value: (s) => s.startDate },
    { title: 'End', value: (s) => s.endDate || '' },
  ];
}

/**
 * A choice of mandate status for the site filter. The API keeps a mandate's status as free
 * text (no enum: `mandateStatus` is compared exactly, case included), so the choices are the
 * statuses it documents for PROVIDER_B (compared ignoring case) and those found on the first
 * 100 mandates; one choice stands for every spelling of a status (`in:Active,ACTIVE,active`).
 */
async function mandateStatuses() {
  const KNOWN = ['Created', 'Pending Submission', 'Submitted', 'Active', 'Reinstated',
    'Customer approval granted', 'Customer approval skipped'];
  let seen = [];
  try {
    seen = (await page('/v1/payment-provider-mandates', { page: 1, pageSize: 100, sort: 'status', fields: 'status' })).rows
      .map((row) => row.status).filter(Boolean);
  } catch {
    // Not allowed or not reachable: the documented statuses still work.
  }
  const groups = new Map();
  for (const status of [...KNOWN, ...seen]) {
    const key = status.toLowerCase();
    if (!groups.has(key)) groups.set(key, new Set([status, status.toUpperCase(), status.toLowerCase()]));
    groups.get(key).add(status);
  }
  const options = [...groups.values()].map((spellings) => {
    const [label] = spellings;
    const usable = [...spellings].filter((spelling) => !spelling.includes(','));
    // A status with a comma cannot go in an `in:` list: it is sent alone, exactly.
    return [usable.length === spellings.size && spellings.size > 1 ? `in:${usable.join(',')}` : label, label];
  });
  return select('mandateStatus', options, { blank: 'Any status' });
}

export async function sitesPage(main) {
  let query = { activeSites: 'true' };
  const list = pagedTable(siteColumns(), (pageNumber, pageSize) => page('/v1/sites', { page: pageNumber, pageSize, sort: 'siteName', ...query }));
  const active = h('input', { type: 'checkbox', id: 'active-sites', checked: true, 'data-field': 'activeSites' });
  const search = filters([
    ['Site name contains', input('siteName')],
    ['Site reference contains', input('siteReference')],
    ['Customer id', input('customerId', { type: 'number', min: 1 })],
    ['Mandate status', await mandateStatuses()],
    await recordFilter('Billing cycle', 'billingCycleId', '/v1/billing-cycles'),
    ['Only sites not ended', active],
  ], async (v) => {
    query = {
      siteName: like(v.siteName), siteReference: like(v.siteReference), customerId: v.customerId,
      mandateStatus: v.mandateStatus, billingCycleId: v.billingCycleId, activeSites: v.activeSites || 'false',
    };
    list.reload(true);
  });
  replace(main, heading('Sites'), search, writable() ? h('p', {}, link('/sites/new', 'New site')) : null, list);
}

export async function newSitePage(main) {
  if (!writable()) throw Object.assign(new Error('Your roles do not allow creating sites.'), { status: 403 });
  const customerId = hashQuery().get('customerId');
  const siteFields = await siteForm(null, { customerId });
  const element = form([siteFields], async () => {
    const created = await api('POST', '/v1/sites', { body: siteFields.value() });
    status(`Site ${created.body.siteName} created.`, 'ok');
    location.hash = `#/sites/${created.body.id}`;
  }, { label: 'Create site' });
  element.id = 'site-form';
  replace(main, heading('New site'), element);
}

export async function editSitePage(main, { id }) {
  if (!writable()) throw Object.assign(new Error('Your roles do not allow changing sites.'), { status: 403 });
  const answer = await api('GET', `/v1/sites/${id}`);
  const site = answer.body;
  const siteFields = await siteForm(site);
  // Changed elsewhere since the form was opened: the form is drawn again from the stored site.
  const reread = async () => {
    await editSitePage(main, { id });
    status('Site re-read: make your change again.', 'ok');
    main.querySelector('h1')?.focus();
  };
  const element = form([siteFields], async () => {
    const operations = diffPatch(site, siteFields.value());
    try {
      if (operations.length) await patch(`/v1/sites/${id}`, operations, answer.etag);
    } catch (error) {
      throw stale(error, 'site', reread);
    }
    status(operations.length ? 'Site saved.' : 'Nothing changed.', 'ok');
    location.hash = `#/sites/${id}`;
  }, { label: 'Save site', extra: link(`/sites/${id}`, 'Cancel') });
  element.id = 'site-form';
  replace(main, heading(`Change site ${site.siteName}`), element);
}

function addressFacts(address) {
  if (!address) return h('p', {}, 'None.');
  return h('address', {}, [address.businessName, address.address1, address.address2, address.address3,
    address.town, address.county, address.postcode, address.country].filter(Boolean).map((line) => [line, h('br')]));
}

export async function sitePage(main, { id }) {
  const answer = await api('GET', `/v1/sites/${id}`);
  const site = answer.body;
  const details = site.siteInvoiceDetails;
  const write = writable();
  /**
   * Draws the page again from the site as stored now (after an action, or to re-read a site
   * changed elsewhere); the focus goes back to `opener` (its button drawn again) or to the
   * page part `fallback` names (`data-part`), so that the next Tab goes on from there.
   */
  async function redraw(opener, fallback, said = null) {
    await sitePage(main, { id });
    if (said) status(said, 'ok');
    focusBack(opener, () => main.querySelector(`[data-part="${fallback}"]`) || main.querySelector('h1'));
  }
  // A write refused with 412 (the site changed elsewhere since this page read it): explained,
  // with a button that reads the site again, after which the action works.
  const reread = (opener, fallback) => () => redraw(opener, fallback, 'Site re-read: make your change again.');
  const contacts = table([
    { title: 'Name', value: (c) => c.contactName },
    { title: 'Role', value: (c) => c.contactRole },
    { title: 'E-mail', value: (c) => c.contactEmailAddress || '' },
    { title: 'Telephone', value: (c) => c.contactTelephoneNumber || '' },
    { title: 'Invoices by', value: (c) => c.receiveInvoiceBy || '' },
    { title: 'Invoice contact', value: (c) => (c.contactNameToAppearOnInvoice
      ? h('strong', { class: 'badge' }, 'Invoice contact')
      : (write ? h('button', { type: 'button', onclick: (event) => makeInvoiceContact(c, event.currentTarget) }, `Make ${c.contactName} the invoice contact`) : '')) },
  ], site.siteContacts, 'Contacts');
  async function makeInvoiceContact(contact, opener) {
    const index = site.siteContacts.indexOf(contact);
    const by = contact.receiveInvoiceBy || (contact.contactEmailAddress ? 'EMAIL' : 'POST');
    try {
      await patch(`/v1/sites/${id}`, [
        { op: 'replace', path: `/siteContacts/${index}/contactNameToAppearOnInvoice`, value: true },
        { op: 'replace', path: `/siteContacts/${index}/receiveInvoiceBy`, value: by },
      ], answer.etag);
      status(`${contact.contactName} is now the invoice contact.`, 'ok');
      await redraw(opener, 'contacts');
    } catch (error) {
      const explained = stale(error, 'site', reread(opener, 'contacts'));
      status(explain(explained), 'error', explained.action);
    }
  }
  const itemEditor = h('section', { class: 'panel', hidden: true, 'aria-label': 'End an inventory item' });
  const itemColumns = [
    { title: 'Product', value: (item) => item.productCode },
    { title: 'Description', value: (item) => item.description || '' },
    { title: 'Quantity', value: (item) => String(item.quantity) },
    { title: 'Start', value: (item) => item.startDate },
    { title: 'End', value: (item) => item.endDate || '' },
  ];
  // Ending or removing an item is a write of inventory items: CUSTOMERS_WRITE, as for the site.
  if (write) {
    itemColumns.push({ title: 'Actions', value: (item) => h('span', { class: 'row-actions' },
      h('button', { type: 'button', 'data-key': `end-item-${item.id}`, onclick: (event) => endItem(main, item, inventory, itemEditor, event.currentTarget) }, `End ${itemName(item)}`),
      h('button', { type: 'button', onclick: () => removeItem(item, inventory, itemEditor) }, `Remove ${itemName(item)}`)) });
  }
  const inventory = pagedTable(itemColumns,
    (pageNumber, pageSize) => page('/v1/inventory-items', { page: pageNumber, pageSize, siteId: id, sort: 'productCode' }), { caption: 'Inventory' });
  replace(main, heading(`Site ${site.siteName}`),
    write ? h('p', { class: 'row-actions' }, link(`/sites/${id}/edit`, 'Change this site')) : null,
    facts([
      ['Customer', named('/v1/customers', site.customerId, (r) => r.customerName, `/customers/${site.customerId}`)], ['Reference', site.siteReference],
      ['Matchmaker tag', site.matchmakerMatchingTag], ['Start', site.startDate], ['End', site.endDate || 'open'],
      ['Invoices sent to site', site.siteIdReceivingInvoice ? named('/v1/sites', site.siteIdReceivingInvoice, (r) => r.siteName, `/sites/${site.siteIdReceivingInvoice}`) : null],
      ['Repayment plan', site.repaymentPlanAmount ? `${site.repaymentPlanAmount} over ${site.repaymentPlanRemainingPeriods} periods` : null],
      ['Created', when(site.createdDate)], ['Updated', when(site.updatedDate)],
    ]),
    h('h2', {}, 'Address'), addressFacts(site.siteAddress),
    h('h2', {}, 'Invoice details'),
    details ? facts([
      ['Invoice template', named('/v1/invoice-templates', details.invoiceTemplateId, (r) => r.name)],
      ['Summary template', details.invoiceSummaryTemplateId ? named('/v1/invoice-templates', details.invoiceSummaryTemplateId, (r) => r.name) : null],
      ['Payment method', details.paymentMethod], ['Payment terms (days)', details.paymentTermsInDays ?? null],
      ['Preferred payment day', details.preferredPaymentDay ?? null],
      ['Mandate', details.mandateReference ? `${details.mandateReference}: ${details.mandateStatus || 'status unknown'}` : null],
      ['Mandate dates', details.mandateCreatedDate ? `created ${when(details.mandateCreatedDate)}, updated ${when(details.mandateUpdatedDate)}` : null],
      ['Third-party customer reference', details.thirdPartyCustomerReference], ['Account name', details.accountName],
      ['Purchase order', details.purchaseOrderNumber], ['Notes', details.invoiceNotes],
    ]) : h('p', {}, 'None: this site\'s invoices go to another site.'),
    details && details.invoiceAddress ? [h('h3', {}, 'Invoice address'), addressFacts(details.invoiceAddress)] : null,
    h('h2', { 'data-part': 'contacts' }, 'Contacts'), contacts,
    h('h2', {}, 'Custom fields'),
    table([{ title: 'Field', value: (f) => f.label || String(f.customFieldDefinitionId) }, { title: 'Value', value: (f) => f.value ?? '' }], site.assignedCustomFields || []),
    h('h2', { 'data-part': 'inventory' }, 'Inventory'), inventory, write ? itemEditor : null,
    write ? addInventory(id, inventory) : null,
    write ? endSite(id, answer, redraw, reread) : null);
}

/** How an inventory item is named on its buttons: its product code and id. */
function itemName(item) {
  return `${item.productCode} (${item.id})`;
}

/**
 * Opens the form that ends one inventory item: `PATCH /v1/inventory-items/{id}` adding (or
 * replacing) its `endDate`, with the ETag just read; the API's errors beside the date.
 */
async function endItem(main, item, inventory, editor, opener) {
  let answer;
  try {
    answer = await api('GET', `/v1/inventory-items/${item.id}`);
  } catch (error) {
    status(explain(error), 'error');
    return;
  }
  // Closed (saved, Cancel or Escape): the focus goes back to the item's End button.
  const back = () => focusBack(opener, () => main.querySelector('[data-part="inventory"]'));
  const close = () => { editor.hidden = true; replace(editor); back(); };
  if (!editor.dataset.escape) {
    editor.dataset.escape = 'yes';
    closeOnEscape(editor, () => editor.querySelector('button.cancel')?.click());
  }
  const end = input('endDate', { type: 'date', value: answer.body.endDate || today(), required: true });
  const element = form([field(`End date of ${itemName(item)}`, end, `It starts on ${answer.body.startDate}.`)], async () => {
    await patch(`/v1/inventory-items/${item.id}`, [{ op: 'add', path: '/endDate', value: end.value || null }], answer.etag);
    status(`Inventory item ${itemName(item)} ends on ${end.value}.`, 'ok');
    editor.hidden = true;
    replace(editor);
    await inventory.reload();
    back();
  }, { label: 'End item', extra: h('button', { type: 'button', class: 'cancel', onclick: close }, 'Cancel') });
  element.id = 'end-item-form';
  replace(editor, h('h3', {}, `End inventory item ${itemName(item)}`), element);
  editor.hidden = false;
  end.focus();
}

/** Removes one inventory item (`DELETE`) once the user confirms; a refusal is said beside the table. */
async function removeItem(item, inventory, editor) {
  if (!window.confirm(`Remove the inventory item ${itemName(item)}? It is deleted, not ended: it no longer shows on the site.`)) return;
  try {
    await api('DELETE', `/v1/inventory-items/${item.id}`);
    status(`Inventory item ${itemName(item)} removed.`, 'ok');
    editor.hidden = true;
    replace(editor);
    await inventory.reload();
    // The item's buttons are gone with it: the focus goes to the inventory's heading.
    focusBack(null, () => document.querySelector('main [data-part="inventory"]'));
  } catch (error) {
    replace(editor, h('h3', {}, `Remove inventory item ${itemName(item)}`),
      h('p', { class: 'form-error', role: 'alert' }, explain(error)));
    editor.hidden = false;
  }
}

function addInventory(siteId, inventory) {
  const product = input('productCode', { required: true });
  const description = input('description');
  const quantity = input('quantity', { type: 'number', min: 1, value: 1 });
  const start = input('startDate', { type: 'date', value: today() });
  const element = form([h('div', { class: 'grid' }, field('Product code', product), field('Description', description),
    field('Quantity', quantity), field('Start date', start))], async () => {
    await api('POST', '/v1/inventory-items', { body: {
      siteId: Number(siteId), productCode: product.value.trim(), description: description.value.trim() || null,
      quantity: numberValue(quantity), startDate: start.value || null,
    } });
    status('Inventory item added.', 'ok');
    // reset() empties the fields set from script (their value is not their default): the
    // quantity and the start date go back to 1 and today, as on a new form.
    element.reset();
    quantity.value = '1';
    start.value = today();
    inventory.reload(true);
  }, { label: 'Add inventory item' });
  element.id = 'inventory-form';
  return h('section', { class: 'panel' }, h('h3', {}, 'Add an inventory item'), element);
}

function endSite(id, answer, redraw, reread) {
  const end = input('endDate', { type: 'date', value: answer.body.endDate || today(), required: true });
  const cascade = checkboxes('cascade_end_date', 'Inventory', [['true', 'Also end its inventory items that end later or never']], ['true']);
  const element = form([field('End date', end), cascade], async () => {
    const submit = element.querySelector('button[type="submit"]');
    const headers = cascade.values().length ? { cascade_end_date: 'true' } : {};
    try {
      await patch(`/v1/sites/${id}`, [{ op: 'add', path: '/endDate', value: end.value || null }], answer.etag, headers);
    } catch (error) {
      throw stale(error, 'site', reread(submit, 'end-site'));
    }
    status(`Site ended on ${end.value}${headers.cascade_end_date ? ', with its inventory' : ''}.`, 'ok');
    await redraw(submit, 'end-site');
  }, { label: 'End site' });
  element.id = 'end-site-form';
  return h('section', { class: 'panel' }, h('h2', { 'data-part': 'end-site' }, 'End the site'), element);
}

