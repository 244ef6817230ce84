// The console's end-to-end test (docs/console.md), run by `cargo xtask console`: the debug
// server on a fresh SQLite database, Debian's headless Chromium, an operator's day. Every step
// is checked in the page and, where it changed data, through the API; screenshots of the main
// pages go to CONSOLE_SCREENSHOTS (docs/console/). Any failure exits non-zero.

import {
  expectedConsoleErrors, check, expect, shot, signInAs, errorBeside, page, tokens, must, call, signInApi, seed, browser,
  base, LIMITED_PASSWORD, adminPassword, READER_PASSWORD,
} from './lib.mjs';
import { sessionSteps } from './sessions.mjs';
import { lateAnswerSteps } from './late-answers.mjs';

let data;
await check('seed the records the console works on, through the API', async () => {
  data = await seed();
});

await check('the page loads with its security headers and shows the sign-in form', async () => {
  const response = await page.goto(`${base}/console`);
  const headers = response.headers();
  expect(headers['content-security-policy']?.startsWith("default-src 'none'"), `CSP: ${headers['content-security-policy']}`);
  expect(headers['x-frame-options'] === 'DENY', 'X-Frame-Options');
  expect(headers['cache-control'] === 'no-store', 'Cache-Control');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await shot('sign-in');
});

await check('a wrong password is refused with the API\'s message', async () => {
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.form-error', { hasText: 'invalid username or password' }).waitFor();
});

await check('the sign-in throttle is said in one sentence, the wait in minutes', async () => {
  // A username no one has: its five failures throttle only it (the address allows 20).
  for (let attempt = 0; attempt < 5; attempt += 1) {
    expect((await call('POST', '/v1/authenticate', null, { username: 'nobody-at-all', password: 'not-the-password' })).status === 401, 'a failure was not 401');
  }
  await page.getByLabel('Username', { exact: true }).fill('nobody-at-all');
  await page.getByLabel('Password', { exact: true }).fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const said = page.locator('#sign-in .form-error', { hasText: 'Too many failed sign-ins' });
  await said.waitFor();
  expect(/^Too many failed sign-ins [^.]*: try again in 15 minutes\.$/.test(await said.textContent()), `the throttle: ${await said.textContent()}`);
});

await check('sign in as the administrator; no token in storage or in the URL', async () => {
  await signInAs('admin', adminPassword);
  const stored = await page.evaluate(() => localStorage.length + sessionStorage.length + document.cookie.length);
  expect(stored === 0, 'something was stored in the browser');
  expect(!page.url().includes(tokens.refresh) && !/token/i.test(page.url()), `the URL holds a token: ${page.url()}`);
  await page.getByRole('link', { name: 'Users' }).waitFor();
});

await check('create a user limited to one contract owner', async () => {
  await page.getByRole('link', { name: 'Users' }).click();
  await page.getByRole('heading', { name: 'Users' }).waitFor();
  const form = page.locator('section', { has: page.getByRole('heading', { name: 'New user' }) });
  await form.getByLabel('Username', { exact: true }).fill('limited');
  // No role: the error is beside the roles, and the focus on their first checkbox.
  await form.getByLabel('Password', { exact: true }).fill(LIMITED_PASSWORD);
  await form.getByRole('button', { name: 'Create user' }).click();
  await form.locator('fieldset[data-field="roles"] .error').filter({ hasText: /./ }).waitFor();
  const focused = await page.evaluate(() => {
    const active = document.activeElement;
    return active && active.type === 'checkbox' && !!active.closest('fieldset[data-field="roles"]');
  });
  expect(focused, 'the roles in error are not focused');
  await form.getByLabel('Password', { exact: true }).fill('short');
  await form.getByLabel('Customer manager (CUSTOMER_MANAGER)').check();
  const owners = form.getByLabel(/^Contract owners/).locator('option');
  await form.getByLabel('Find contract owners').fill('acme');
  await page.waitForFunction(() => document.querySelectorAll('select[data-field="contractOwnerIds"] option').length === 1);
  await form.getByLabel(/^Contract owners/).selectOption({ label: `Acme Telecom (${data.acme.id})` });
  await form.getByRole('button', { name: 'Create user' }).click();
  await form.locator('.field:has([data-field="password"]) .error').filter({ hasText: /12/ }).waitFor();
  await form.getByLabel('Password', { exact: true }).fill(LIMITED_PASSWORD);
  await form.getByRole('button', { name: 'Create user' }).click();
  await page.getByRole('cell', { name: 'limited', exact: true }).waitFor();
  const users = await must('GET', '/v1/users?page=1&pageSize=10&username=limited', data.admin);
  expect(users.length === 1 && users[0].contractOwnerIds[0] === data.acme.id, JSON.stringify(users));
  // The form is empty again, and so is the owners' search: the list is no longer filtered.
  await page.waitForFunction(() => document.querySelectorAll('select[data-field="contractOwnerIds"] option').length === 2);
  expect(await owners.count() === 2, 'the contract owners are still filtered by the emptied search');
  // The contract owners column names them; the id column gives the ids other forms ask for.
  await page.getByRole('cell', { name: `Acme Telecom (${data.acme.id})`, exact: true }).waitFor();
  await page.getByRole('cell', { name: String(users[0].id), exact: true }).waitFor();
  await shot('users');
  // A username already taken: the API's 409 beside the username, which gets the focus.
  await form.getByLabel('Username', { exact: true }).fill('limited');
  await form.getByLabel('Password', { exact: true }).fill(LIMITED_PASSWORD);
  await form.getByLabel('Read only (READ_ONLY)').check();
  await form.getByRole('button', { name: 'Create user' }).click();
  await form.locator('.field:has([data-field="username"]) .error', { hasText: 'is already taken by another user' }).waitFor();
  expect(await page.evaluate(() => document.activeElement?.dataset.field === 'username'), 'the username in error is not focused');
  await form.getByLabel('Read only (READ_ONLY)').uncheck();
});

await check('the focus comes back to the button that opened the roles editor (Save roles, Cancel, Escape)', async () => {
  const focusedOn = (text) => page.waitForFunction((wanted) => document.activeElement?.textContent === wanted, text);
  await page.getByRole('button', { name: 'Change roles of limited' }).click();
  await page.getByRole('button', { name: 'Save roles' }).click();
  await page.locator('#status', { hasText: 'Roles of limited changed.' }).waitFor();
  await focusedOn('Change roles of limited');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await focusedOn('Change roles of limited');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Save roles' }).waitFor();
  await page.keyboard.press('Escape');
  await focusedOn('Change roles of limited');
  expect(await page.getByRole('button', { name: 'Save roles' }).isHidden(), 'Escape left the roles editor open');
});

await check('deactivate and reactivate the user', async () => {
  await page.getByRole('button', { name: 'Deactivate limited' }).click();
  await page.getByRole('button', { name: 'Reactivate limited' }).click();
  await page.getByRole('button', { name: 'Deactivate limited' }).waitFor();
  // Deactivating yourself asks first; declined, nothing is sent.
  const asked = new Promise((resolve) => page.once('dialog', async (dialog) => { resolve(dialog.message()); await dialog.dismiss(); }));
  await page.getByRole('button', { name: 'Deactivate admin' }).click();
  expect(/Deactivate yourself/.test(await asked), 'no confirmation asked');
  await page.waitForTimeout(300);
  const [admin] = await must('GET', '/v1/users?page=1&pageSize=1&username=admin', data.admin);
  expect(admin.active, 'the administrator deactivated themself without confirming');
  await page.getByRole('button', { name: 'Deactivate admin' }).waitFor();
});

await check('the roles with their permissions', async () => {
  await page.getByRole('link', { name: 'Roles' }).click();
  await page.getByRole('cell', { name: 'READ_ONLY', exact: true }).waitFor();
  await shot('roles');
});

let apiKey;
await check('create an API key: shown once, with a copy button; it works', async () => {
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name', { exact: true }).fill('nightly export');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const shown = page.getByLabel('API key', { exact: true });
  await shown.waitFor();
  apiKey = await shown.inputValue();
  expect(/^bk_[A-Za-z0-9_-]{43}$/.test(apiKey), `key ${apiKey}`);
  await page.getByRole('button', { name: 'Copy key' }).click();
  await page.getByRole('cell', { name: 'nightly export', exact: true }).waitFor();
  await shot('api-keys');
  const answer = await call('GET', '/v1/currencies?page=1&pageSize=1', apiKey);
  expect(answer.status === 200, `the key is refused: ${answer.status}`);
  await page.getByRole('button', { name: 'I have stored it: hide the key' }).click();
  expect(await page.getByLabel('API key', { exact: true }).count() === 0, 'the key is still shown');
  // The keyboard user goes on from the button that created the key, not from the top.
  expect(await page.evaluate(() => document.activeElement?.textContent) === 'Create API key', 'the focus is lost after hiding the key');
  // A key revoked while still shown is no longer shown.
  await page.getByLabel('Name', { exact: true }).fill('temporary');
  await page.getByRole('button', { name: 'Create API key' }).click();
  await page.getByLabel('API key', { exact: true }).waitFor();
  await page.getByRole('cell', { name: 'temporary', exact: true }).waitFor();
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Revoke temporary' }).click();
  await page.locator('#status', { hasText: 'API key temporary revoked.' }).waitFor();
  expect(await page.getByLabel('API key', { exact: true }).count() === 0, 'the revoked key is still shown');
  // A key for another user offers that user's roles, not the administrator's.
  const [limited] = await must('GET', '/v1/users?page=1&pageSize=1&username=limited', data.admin);
  await page.getByLabel('For user id (empty: yourself)').fill(String(limited.id));
  await page.getByLabel('For user id (empty: yourself)').dispatchEvent('change');
  await page.getByLabel('CUSTOMER_MANAGER', { exact: true }).waitFor();
  expect(await page.getByLabel('ADMINISTRATOR', { exact: true }).count() === 0, 'the administrator\'s roles are offered');
  await page.getByLabel('Name', { exact: true }).fill('limited export');
  await page.getByLabel('CUSTOMER_MANAGER', { exact: true }).check();
  await page.getByRole('button', { name: 'Create API key' }).click();
  await page.getByLabel('API key', { exact: true }).waitFor();
  const keys = await must('GET', `/v1/api-keys?page=1&pageSize=10&userId=${limited.id}`, data.admin);
  expect(keys.length === 1 && keys[0].roles.join() === 'CUSTOMER_MANAGER', JSON.stringify(keys));
  await page.getByRole('button', { name: 'I have stored it: hide the key' }).click();
});

let siteId;
await check('create a site with a mistake: the error is beside the field; fixed, it is created', async () => {
  await page.goto(`${base}/console#/sites/new?customerId=${data.bakery.id}`);
  await page.getByRole('heading', { name: 'New site' }).waitFor();
  await page.getByLabel('Customer', { exact: true }).selectOption(String(data.bakery.id));
  await page.getByLabel('Site name').fill('Head office');
  await page.getByLabel('Site reference').fill('HO');
  await page.getByLabel('Start date').fill('2026-01-01');
  await page.getByLabel('Address line 1').fill('1 High Street');
  await page.getByLabel('Town').fill('Leeds');
  await page.getByLabel('Postcode').fill('LS1 #1AA');
  await page.getByLabel('Invoice template', { exact: true }).selectOption(String(data.template.id));
  await page.getByLabel('Name', { exact: true }).fill('Ann');
  await page.getByLabel('E-mail', { exact: true }).fill('ann@example.com');
  await page.getByRole('button', { name: 'Add a contact' }).click();
  await page.getByLabel('Name', { exact: true }).nth(1).fill('Ben');
  await page.getByLabel('Role', { exact: true }).nth(1).selectOption('TECHNICAL');
  await page.getByRole('button', { name: 'Create site' }).click();
  await errorBeside('siteAddress.postcode').filter({ hasText: /./ }).waitFor();
  await shot('site-field-error');
  await page.getByLabel('Postcode').fill('LS1 1AA');
  // Invoices consolidated to another site, with no site named: the API's error on
  // siteInvoiceDetails (hidden) is shown beside the receiving site, once.
  await page.getByLabel('consolidated to another site').check();
  await page.getByRole('button', { name: 'Create site' }).click();
  await errorBeside('siteIdReceivingInvoice').filter({ hasText: /is required unless siteIdReceivingInvoice/ }).waitFor();
  const said = await page.locator('#site-form').evaluate((form) => {
    const texts = [...form.querySelectorAll('.error, .form-error p')].map((node) => node.textContent);
    return texts.filter((text) => text.includes('is required unless siteIdReceivingInvoice')).length;
  });
  expect(said === 1, `the receiving site's error is shown ${said} times`);
  expect(await page.locator('#site-form .form-error').textContent() === 'Please correct the fields marked below.',
    `the error box: ${await page.locator('#site-form .form-error').textContent()}`);
  // A receiving site typed that does not exist: the click on the button below the box submits
  // (a number box that scrolled the page as it lost the focus made this click land elsewhere),
  // and the service's error is shown beside it.
  await page.getByLabel('Site receiving the invoices (id)').fill('999');
  await page.getByRole('button', { name: 'Create site' }).click();
  await errorBeside('siteIdReceivingInvoice').filter({ hasText: /999 does not exist/ }).waitFor();
  await page.getByLabel('sent from this site').check();
  await page.getByRole('button', { name: 'Create site' }).click();
  await page.getByRole('heading', { name: 'Site Head office', exact: true }).waitFor();
  siteId = Number(page.url().match(/#\/sites\/(\d+)/)[1]);
  const site = await must('GET', `/v1/sites/${siteId}`, data.admin);
  expect(site.siteAddress.postcode === 'LS1 1AA' && site.siteContacts.length === 2, JSON.stringify(site));
});

await check('move the invoice contact from Ann to Ben (a double click sends one request)', async () => {
  const patches = [];
  const count = (request) => { if (request.method() === 'PATCH') patches.push(request.url()); };
  page.on('request', count);
  await page.getByRole('button', { name: 'Make Ben the invoice contact' }).dblclick();
  await page.getByRole('button', { name: 'Make Ann the invoice contact' }).waitFor();
  await page.waitForTimeout(300);
  page.off('request', count);
  expect(patches.length === 1, `a double click sent ${patches.length} patches`);
  const bar = await page.locator('#status').getAttribute('class');
  expect(!/error/.test(bar), `the status bar reports an error: ${await page.locator('#status').textContent()}`);
  const site = await must('GET', `/v1/sites/${siteId}`, data.admin);
  const [ann, ben] = site.siteContacts;
  expect(!ann.contactNameToAppearOnInvoice && ben.contactNameToAppearOnInvoice && ben.receiveInvoiceBy === 'POST', JSON.stringify(site.siteContacts));
});

await check('a site changed elsewhere: an action is refused with a plain explanation and a button that re-reads the site; then it works', async () => {
  const changed = await call('PATCH', `/v1/sites/${siteId}`, data.admin,
    [{ op: 'replace', path: '/matchmakerMatchingTag', value: 'TAG-1' }], 'application/json-patch+json');
  expect(changed.status === 200, `changing the site through the API: ${changed.status}`);
  await page.getByRole('button', { name: 'Make Ann the invoice contact' }).click();
  await page.locator('#status', { hasText: 'This site was changed by someone else since you opened it' }).waitFor();
  expect(!/412|If-Match/.test(await page.locator('#status').textContent()), `raw: ${await page.locator('#status').textContent()}`);
  // The focus is on the way out: the button that reads the site again.
  expect(await page.evaluate(() => document.activeElement?.textContent) === 'Re-read the site', 'the re-read button is not focused');
  await page.keyboard.press('Enter');
  await page.locator('.facts dd', { hasText: 'TAG-1' }).waitFor();
  await page.getByRole('button', { name: 'Make Ann the invoice contact' }).click();
  await page.getByRole('button', { name: 'Make Ben the invoice contact' }).waitFor();
  await page.getByRole('button', { name: 'Make Ben the invoice contact' }).click();
  await page.getByRole('button', { name: 'Make Ann the invoice contact' }).waitFor();
  const site = await must('GET', `/v1/sites/${siteId}`, data.admin);
  expect(site.siteContacts[1].contactNameToAppearOnInvoice, JSON.stringify(site.siteContacts));
});

await check('edit the site: a field error from a patch; the town and the payment method (a mandate, its status shown) changed', async () => {
  await page.getByRole('link', { name: 'Change this site' }).click();
  await page.getByRole('heading', { name: 'Change site Head office' }).waitFor();
  // The API sets the invoice template on creation only: shown, not offered.
  expect(await page.getByLabel('Invoice template', { exact: true }).isDisabled(), 'the invoice template can be changed');
  await page.getByLabel('Town').fill('');
  await page.getByRole('button', { name: 'Save site' }).click();
  // An emptied box is "required" to an operator, not the API's "must not be null".
  await errorBeside('siteAddress.town').filter({ hasText: /^is required$/ }).waitFor();
  await page.getByLabel('Town').fill('Bradford');
  await page.getByLabel('Payment method').selectOption('PROVIDER_D');
  await page.getByLabel('Mandate reference').fill('MD-7');
  await page.getByRole('button', { name: 'Save site' }).click();
  await page.getByRole('heading', { name: 'Site Head office', exact: true }).waitFor();
  await page.locator('.facts dd', { hasText: 'MD-7: ACTIVE' }).waitFor();
  const site = await must('GET', `/v1/sites/${siteId}`, data.admin);
  expect(site.siteAddress.town === 'Bradford' && site.siteContacts[1].contactNameToAppearOnInvoice
    && site.siteInvoiceDetails.mandateStatus === 'ACTIVE', JSON.stringify(site));
});

/** The site's inventory items through the API, by product code. */
async function itemsOf(site) {
  const items = await must('GET', `/v1/inventory-items?page=1&pageSize=20&siteId=${site}&sort=productCode`, data.admin);
  return Object.fromEntries(items.map((item) => [item.productCode, item]));
}

await check('add inventory; end one item (a refused date beside the field) and remove another (confirmed); then end the site with its inventory (cascade)', async () => {
  const inventory = page.locator('#inventory-form');
  for (const [product, start] of [['BROADBAND', '2026-01-01'], ['PHONE', '2026-01-01'], ['LATE', '2027-03-01']]) {
    await inventory.getByLabel('Product code').fill(product);
    await inventory.getByLabel('Start date').fill(start);
    await inventory.getByRole('button', { name: 'Add inventory item' }).click();
    await page.getByRole('cell', { name: product, exact: true }).waitFor();
  }
  const added = await itemsOf(siteId);
  const name = (product) => `${product} (${added[product].id})`;
  await shot('site');
  // End one item: a date before its start is refused beside the date; a good one is saved.
  // Cancel (and Escape) close the form, the focus back on the item's End button.
  const endPhone = page.getByRole('button', { name: `End ${name('PHONE')}` });
  await endPhone.click();
  await page.locator('#end-item-form').getByRole('button', { name: 'Cancel' }).click();
  expect(await page.evaluate(() => document.activeElement?.textContent) === `End ${name('PHONE')}`, 'the focus is lost after Cancel');
  await endPhone.click();
  await page.locator('#end-item-form').waitFor();
  await page.keyboard.press('Escape');
  await page.locator('#end-item-form').waitFor({ state: 'detached' });
  await endPhone.click();
  const endItem = page.locator('#end-item-form');
  await endItem.getByLabel(/^End date of/).fill('2025-12-31');
  await endItem.getByRole('button', { name: 'End item' }).click();
  await endItem.locator('.field:has([data-field="endDate"]) .error').filter({ hasText: /./ }).waitFor();
  await endItem.getByLabel(/^End date of/).fill('2026-06-30');
  await endItem.getByRole('button', { name: 'End item' }).click();
  await page.getByRole('cell', { name: '2026-06-30', exact: true }).waitFor();
  expect((await itemsOf(siteId)).PHONE.endDate === '2026-06-30', 'the item was not ended');
  // An item starting after the site's end date: the cascade is refused (409, end or remove it first).
  const end = page.locator('#end-site-form');
  await end.getByLabel('End date').fill('2026-12-31');
  expect(await end.getByLabel(/Also end its inventory/).isChecked(), 'cascade is not offered by default');
  await end.getByRole('button', { name: 'End site' }).click();
  await end.locator('.form-error', { hasText: 'end or remove it first' }).waitFor();
  // Remove it: declined, nothing is sent; confirmed, it is gone.
  const declined = new Promise((resolve) => page.once('dialog', async (dialog) => { resolve(dialog.message()); await dialog.dismiss(); }));
  await page.getByRole('button', { name: `Remove ${name('LATE')}` }).click();
  expect(/Remove the inventory item LATE/.test(await declined), 'no confirmation asked');
  await page.waitForTimeout(300);
  expect((await itemsOf(siteId)).LATE, 'the item was removed without a confirmation');
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: `Remove ${name('LATE')}` }).click();
  await page.locator('#status', { hasText: `Inventory item ${name('LATE')} removed.` }).waitFor();
  await page.getByRole('cell', { name: 'LATE', exact: true }).waitFor({ state: 'detached' });
  expect(!(await itemsOf(siteId)).LATE, 'the item was not removed');
  await end.getByRole('button', { name: 'End site' }).click();
  await page.locator('.facts dd', { hasText: '2026-12-31' }).first().waitFor();
  // The page is drawn again: the focus is on its End site button, not lost.
  await page.waitForFunction(() => document.activeElement?.textContent === 'End site');
  const items = await itemsOf(siteId);
  expect(Object.keys(items).length === 2 && items.BROADBAND.endDate === '2026-12-31' && items.PHONE.endDate === '2026-06-30', JSON.stringify(items));
});

let listSite;
await check('removing a contact and a custom field that is not the last removes exactly those: the kept ones keep their ids and the members the form does not show', async () => {
  const defs = [];
  for (const label of ['Department', 'Project']) defs.push(await must('POST', '/v1/custom-field-definitions', data.admin, { label }));
  const [costCentre] = await must('GET', '/v1/custom-field-definitions?page=1&pageSize=10&label=Cost%20centre', data.admin);
  listSite = await must('POST', '/v1/sites', data.admin, {
    customerId: data.bakery.id, siteName: 'Depot', siteReference: 'DEP', startDate: '2026-01-01',
    siteAddress: { address1: '2 Mill Lane', town: 'Leeds', postcode: 'LS2 2BB', country: 'GB' },
    siteInvoiceDetails: { invoiceTemplateId: data.template.id, paymentMethod: 'CHEQUE', paymentTermsInDays: 30 },
    siteContacts: [
      { contactName: 'Cat', contactRole: 'ACCOUNTS', contactEmailAddress: 'cat@example.com', receiveInvoiceBy: 'EMAIL' },
      { contactName: 'Dan', contactRole: 'TECHNICAL', contactEmailAddress: 'dan@example.com', receiveInvoiceBy: 'EMAIL',
        contactNameToAppearOnInvoice: true, emailSuspended: true, receiveSmsFraudAlert: true, receiveEmailFraudAlert: true,
        contactAlternativeTelephoneNumber: '0113 496 0000' },
      { contactName: 'Eve', contactRole: 'SALES', receiveSmsFraudAlert: true, contactAlternativeTelephoneNumber: '0113 496 0001' },
    ],
    assignedCustomFields: [
      { customFieldDefinitionId: costCentre.id, value: 'CC-1' },
      { customFieldDefinitionId: defs[0].id, value: 'Ops' },
      { customFieldDefinitionId: defs[1].id, value: 'P-9' },
    ],
  });
  const stored = await must('GET', `/v1/sites/${listSite.id}`, data.admin);
  const patches = [];
  const watch = (request) => { if (request.method() === 'PATCH') patches.push(request.postDataJSON()); };
  page.on('request', watch);
  await page.goto(`${base}/console#/sites/${listSite.id}/edit`);
  await page.getByRole('heading', { name: 'Change site Depot' }).waitFor();
  await page.getByRole('button', { name: 'Remove contact 1' }).click();
  await page.getByRole('button', { name: 'Remove custom field 2' }).click();
  // The kept elements are still edited in place: Eve's e-mail, now the second contact.
  await page.getByLabel('E-mail', { exact: true }).nth(1).fill('eve@example.com');
  await page.getByRole('button', { name: 'Save site' }).click();
  await page.getByRole('heading', { name: 'Site Depot', exact: true }).waitFor();
  page.off('request', watch);
  const site = await must('GET', `/v1/sites/${listSite.id}`, data.admin);
  const strip = (element, changes = {}) => ({ ...element, ...changes });
  const [, dan, eve] = stored.siteContacts;
  expect(JSON.stringify(site.siteContacts) === JSON.stringify([dan, strip(eve, { contactEmailAddress: 'eve@example.com' })]),
    `the kept contacts changed: ${JSON.stringify(site.siteContacts)} (patch ${JSON.stringify(patches)})`);
  const [cc, , project] = stored.assignedCustomFields;
  expect(JSON.stringify(site.assignedCustomFields) === JSON.stringify([cc, project]),
    `the kept custom fields changed: ${JSON.stringify(site.assignedCustomFields)} (patch ${JSON.stringify(patches)})`);
  const removes = patches.flat().filter((op) => op.op === 'remove').map((op) => op.path);
  expect(JSON.stringify(removes) === JSON.stringify(['/siteContacts/0', '/assignedCustomFields/1']), `removed: ${JSON.stringify(removes)}`);
});

const zenithNameRead = await lateAnswerSteps({ siteId, listSite });

await check('search customers and sites with the list filters', async () => {
  await page.getByRole('link', { name: 'Customers' }).click();
  await page.getByLabel('Name contains').fill('bakery');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('.page-summary', { hasText: '(1 row)' }).waitFor();
  await page.getByRole('link', { name: "Bob's Bakery" }).waitFor();
  await shot('customers');
  // Contract owners are chosen by name, not typed as ids.
  await page.getByLabel('Name contains').fill('');
  await page.getByRole('search').getByLabel('Contract owner', { exact: true }).selectOption({ label: `Acme Telecom (${data.acme.id})` });
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name: "Bob's Bakery" }).waitFor();
  expect(await page.getByRole('link', { name: data.zenithCustomer.customerName }).count() === 0, 'another owner\'s customer is listed');
  await page.getByRole('search').getByLabel('Contract owner', { exact: true }).selectOption('');
  await page.getByRole('link', { name: 'Sites', exact: true }).click();
  await page.getByLabel('Only sites not ended').uncheck();
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name: 'Head office' }).waitFor();
  // The mandate status is a choice of the statuses the API knows, whatever their case: the
  // mandate's status is "ACTIVE", the documented one "Active".
  await page.getByLabel('Mandate status').selectOption({ label: 'Active' });
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('.page-summary', { hasText: '(1 row)' }).waitFor();
  await page.getByRole('link', { name: 'Head office' }).waitFor();
  await page.getByLabel('Mandate status').selectOption({ label: 'Cancelled' });
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('.page-summary', { hasText: '(0 rows)' }).waitFor();
  await page.getByLabel('Mandate status').selectOption('');
});

await check('reference data: browse with a filter; a change to an SI-maintained source is refused and explained', async () => {
  await page.goto(`${base}/console#/reference-data/dialstrings`);
  await page.getByRole('heading', { name: 'Dialstrings', exact: true }).waitFor();
  await page.getByLabel('Dialstring contains').fill('4420');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('.page-summary', { hasText: '(1 row)' }).waitFor();
  await page.getByRole('button', { name: 'Change 4420' }).click();
  const editor = page.getByRole('region', { name: 'Change a record' });
  await editor.getByLabel('End date').fill('2026-12-31');
  await editor.getByRole('button', { name: 'Save', exact: true }).click();
  await page.locator('.form-error', { hasText: 'siMaintained = true' }).waitFor();
  await page.locator('.form-error', { hasText: 'Change them in the feed' }).waitFor();
  await shot('reference-data');
  await editor.getByRole('button', { name: 'Cancel' }).click();
  expect(await page.evaluate(() => document.activeElement?.textContent) === 'Change 4420', 'the focus is lost after Cancel');
});

await check('reference data: a dialstring of a source the API maintains is changed', async () => {
  await page.getByLabel('Dialstring contains').fill('447');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('button', { name: 'Change 447' }).click();
  const editor = page.getByRole('region', { name: 'Change a record' });
  await editor.getByLabel('End date').fill('2027-06-30');
  await editor.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('cell', { name: '2027-06-30', exact: true }).waitFor();
  const rows = await must('GET', '/v1/dialstrings?page=1&pageSize=5&dialstring=447', data.admin);
  expect(rows.length === 1 && rows[0].endDate === '2027-06-30', JSON.stringify(rows));
  await page.getByRole('link', { name: 'Source charge groups' }).click();
  await page.getByRole('search').getByLabel('Source id').fill(String(data.source.id));
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('.page-summary', { hasText: '(1 row)' }).waitFor();
  await page.getByRole('cell', { name: 'MOB', exact: true }).waitFor();
  expect(await page.getByRole('cell', { name: 'FMOB', exact: true }).count() === 0, 'the filter on the source is not applied');
});

await check('customer set-up: a billing cycle is created, the records customers name are listed', async () => {
  await page.getByRole('link', { name: 'Customer set-up' }).click();
  await page.getByRole('heading', { name: 'Contract owners', exact: true }).waitFor();
  await page.getByRole('cell', { name: 'Acme Telecom', exact: true }).waitFor();
  await page.getByRole('link', { name: 'Billing cycles' }).click();
  const create = page.locator('section', { has: page.getByRole('heading', { name: 'New billing cycle' }) });
  await create.getByLabel('Name', { exact: true }).fill('Quarterly');
  await create.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('cell', { name: 'Quarterly', exact: true }).waitFor();
  const cycles = await must('GET', '/v1/billing-cycles?page=1&pageSize=10&name=Quarterly', data.admin);
  expect(cycles.length === 1, JSON.stringify(cycles));
  expect(await create.getByLabel('Name', { exact: true }).inputValue() === '', 'the create form still holds the created record');
  // The header keeps one row with the current section in bold: Sign out stays at the right.
  const header = await page.evaluate(() => ({
    height: document.querySelector('.top').getBoundingClientRect().height,
    signOut: document.getElementById('sign-out').getBoundingClientRect().right,
  }));
  expect(header.height < 60 && header.signOut > 1200, `the header at 1280 px: ${JSON.stringify(header)}`);
  await shot('customer-setup');
});

await check('a record renamed in the console shows its new name at once where others name it', async () => {
  // The customers list has just shown Bob's Bakery's billing cycle by name ("Monthly").
  await page.getByRole('button', { name: 'Change Monthly' }).click();
  const editor = page.getByRole('region', { name: 'Change a record' });
  await editor.getByLabel('Name', { exact: true }).fill('Monthly (calendar)');
  await editor.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('cell', { name: 'Monthly (calendar)', exact: true }).waitFor();
  await page.getByRole('link', { name: 'Customers' }).click();
  await page.getByLabel('Name contains').fill('bakery');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('cell', { name: `Monthly (calendar) (${data.cycle.id})`, exact: true }).first().waitFor();
  // Renamed elsewhere (through the API): the console reads the name again once a minute old.
  const renamed = await call('PATCH', `/v1/contract-owners/${data.other.id}`, data.admin,
    [{ op: 'replace', path: '/name', value: 'Zenith Networks plc' }], 'application/json-patch+json');
  expect(renamed.status === 200, `renaming Zenith Networks: ${renamed.status}`);
});

await check('rate a number: the outcome and the summary row', async () => {
  await page.getByRole('link', { name: 'Rating tester' }).click();
  await page.getByLabel('Reference data source', { exact: true }).selectOption(String(data.source.id));
  await page.getByLabel('Date', { exact: true }).fill('2026-06-01');
  await page.getByLabel('Dialled number').fill('+44 7712 345678');
  await page.getByRole('button', { name: 'Rate' }).click();
  await page.getByRole('heading', { name: 'Outcome: DIALSTRING' }).waitFor();
  await page.getByRole('heading', { name: 'Summary row' }).waitFor();
  await page.locator('#rating-outcome dd', { hasText: 'UK Mobile' }).first().waitFor();
  // In words, with the source's name and each member's API name beside it.
  const rated = await page.locator('#rating-outcome p').first().textContent();
  expect(rated === `Rated against ${data.source.name} (${data.source.id}) on 2026-06-01.`, `the outcome says: ${rated}`);
  await page.locator('#rating-outcome dt', { hasText: 'Charge group id chargeGroupId' }).first().waitFor();
  // The keyboard user stays where they were: the button that was disabled while it ran.
  await page.waitForFunction(() => document.activeElement?.textContent === 'Rate');
  await shot('rating');
  await page.getByLabel('Dialled number').fill('');
  await page.getByLabel('Or a call class').fill('MOBILE');
  await page.getByRole('button', { name: 'Rate' }).click();
  await page.getByRole('heading', { name: 'Outcome: CALL_CLASS' }).waitFor();
  // A refused lookup leaves no outcome of the previous one.
  await page.getByLabel('Or a call class').fill('');
  await page.getByLabel('Dialled number').fill('abc');
  await page.getByRole('button', { name: 'Rate' }).click();
  await page.locator('#rating-form .form-error').filter({ hasText: /./ }).waitFor();
  expect(await page.locator('#rating-outcome').isHidden(), 'the previous outcome is still shown after a refused lookup');
  expect(await page.getByRole('heading', { name: /^Outcome/ }).count() === 0, 'an outcome heading is still in the page');
  // Nothing to rate: nothing is sent, the error is beside the number.
  await page.getByLabel('Dialled number').fill('');
  await page.getByRole('button', { name: 'Rate' }).click();
  await page.locator('.field:has([data-field="dialledNumber"]) .error', { hasText: 'call class' }).waitFor();
});

await check('the audit trail: filtered by resource, each event as a diff', async () => {
  await page.getByRole('link', { name: 'Audit trail' }).click();
  await page.getByLabel('Resource').selectOption('sites');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('.page-summary', { hasText: /\(\d+ rows?\)/ }).waitFor();
  await page.locator('details summary').first().click();
  await page.locator('table.diff ins').first().waitFor();
  // The elements of a list of records are named by id: a removed contact shows removed, not
  // every later one renamed.
  const members = await page.locator('table.diff tbody th').allTextContents();
  expect(members.some((m) => /^siteContacts\[id=\d+\]\./.test(m)), JSON.stringify(members));
  expect(!members.some((m) => /^siteContacts\[\d+\]/.test(m)), JSON.stringify(members));
  await shot('audit');
  // A create has no before: its members are added, with no "(record)" row for the missing one.
  await page.getByLabel('Action').selectOption('CREATE');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('.page-summary', { hasText: /\(\d+ rows?\)/ }).waitFor();
  await page.locator('details summary').first().click();
  await page.locator('table.diff ins').first().waitFor();
  const created = await page.locator('details[open] table.diff tbody th').allTextContents();
  expect(created.length > 0 && !created.includes('(record)'), JSON.stringify(created));
});

await check('at 390 px wide only the tables scroll sideways, not the page; a table that scrolls can be focused and is named', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const pages = [
      ['/sites', 'Head office'], [`/sites/${siteId}`, 'BROADBAND'], ['/customers', "Bob's Bakery"], ['/audit', null],
      ['/users', 'limited'], ['/api-keys', 'nightly export'], ['/reference-data/dialstrings', '447'],
      ['/setup/payment-provider-mandates', 'MD-7'], ['/roles', 'READ_ONLY'],
    ];
    let scrolling = 0;
    for (const [route, text] of pages) {
      await page.goto(`${base}/console#${route}`);
      await page.locator('.table-scroll table').first().waitFor();
      if (text) await page.getByRole('cell', { name: text, exact: true }).first().waitFor();
      await page.waitForTimeout(200);
      const layout = await page.evaluate(() => ({
        width: document.documentElement.scrollWidth,
        boxes: [...document.querySelectorAll('.table-scroll')].map((box) => ({
          scrolls: box.scrollWidth > box.clientWidth + 1, tabindex: box.getAttribute('tabindex'), label: box.getAttribute('aria-label'),
        })),
      }));
      expect(layout.width <= 390, `${route}: the page is ${layout.width} px wide at 390`);
      for (const box of layout.boxes.filter((b) => b.scrolls)) {
        scrolling += 1;
        expect(box.tabindex === '0' && /scrolls sideways/.test(box.label || ''), `${route}: a table that scrolls is not focusable or named: ${JSON.stringify(box)}`);
      }
    }
    expect(scrolling > 0, 'no table scrolls at 390 px: the check checks nothing');
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

await sessionSteps({ data, siteId, zenithNameRead });

await browser.close();
console.log('console-e2e: every step passed');
