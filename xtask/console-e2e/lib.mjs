// What the console's end-to-end test (flow.mjs) stands on: the API from Node (seeding and
// checking), Debian's headless Chromium through playwright-core (no browser is downloaded),
// and `check`, which runs one step and stops the whole run, non-zero, at the first failure
// (or at any script error or CSP violation the page reports).
//
// Environment: CONSOLE_BASE_URL (http://127.0.0.1:PORT), CONSOLE_ADMIN_PASSWORD,
// CONSOLE_SCREENSHOTS (directory for the PNGs), CHROMIUM (default /usr/bin/chromium).

import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const base = process.env.CONSOLE_BASE_URL;
const adminPassword = process.env.CONSOLE_ADMIN_PASSWORD;
const shots = process.env.CONSOLE_SCREENSHOTS;
const failureShot = process.env.CONSOLE_FAILURE_SHOT || 'console-e2e-failure.png';
if (!base || !adminPassword || !shots) {
  console.error('CONSOLE_BASE_URL, CONSOLE_ADMIN_PASSWORD and CONSOLE_SCREENSHOTS are required');
  process.exit(2);
}
mkdirSync(shots, { recursive: true });

const LIMITED_PASSWORD = 'limited-user-password-2026';
const READER_PASSWORD = 'read-only-user-password-2026';

// ---- The API, from Node, for seeding and for checking what the console did.

async function call(method, path, token, body, contentType = 'application/json') {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = contentType;
  const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = text; }
  return { status: response.status, body: parsed };
}

async function must(method, path, token, body, expected = [200, 201]) {
  const answer = await call(method, path, token, body);
  if (!expected.includes(answer.status)) {
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body;
}

async function signInApi(username, password) {
  return (await must('POST', '/v1/authenticate', null, { username, password }, [200])).token;
}

async function seed() {
  const admin = await signInApi('admin', adminPassword);
  const acme = await must('POST', '/v1/contract-owners', admin, { name: 'Acme Telecom' });
  const other = await must('POST', '/v1/contract-owners', admin, { name: 'Zenith Networks' });
  const cycle = await must('POST', '/v1/billing-cycles', admin, { name: 'Monthly' });
  const template = await must('POST', '/v1/invoice-templates', admin, { name: 'Standard', type: 'INVOICE' });
  const bakery = await must('POST', '/v1/customers', admin, { customerName: "Bob's Bakery", customerReference: 'BB-1', contractOwnerId: acme.id, billingCycleId: cycle.id, startDate: '2026-01-01' });
  const zenithCustomer = await must('POST', '/v1/customers', admin, { customerName: 'Zed Corporation', customerReference: 'ZC-1', contractOwnerId: other.id, billingCycleId: cycle.id, startDate: '2026-01-01' });
  await must('POST', '/v1/custom-field-definitions', admin, { label: 'Cost centre' });
  await must('POST', '/v1/payment-provider-mandates', admin, { provider: 'PROVIDER_D', mandateReference: 'MD-7', status: 'ACTIVE' });
  await must('POST', '/v1/payment-provider-mandates', admin, { provider: 'PROVIDER_C', mandateReference: 'MC-1', status: 'Cancelled' });
  const currency = await must('POST', '/v1/currencies', admin, { code: 'GBP', symbol: '£', majorCurrencyName: 'Pound', minorCurrencyName: 'Penny', majorCurrencyFormat: '£#,##0.00', minorCurrencyFormat: '#p', salesTaxName: 'VAT' });
  const locale = await must('POST', '/v1/locales', admin, { country: { code: 'GB' }, currency: { id: currency.id } });
  const source = await must('POST', '/v1/reference-data-sources', admin, { name: 'Internal', locale: { id: locale.id }, siMaintained: false });
  const feed = await must('POST', '/v1/reference-data-sources', admin, { name: 'Carrier feed', locale: { id: locale.id }, siMaintained: false });
  const category = await must('POST', '/v1/charge-group-categories', admin, { name: 'Calls', chargingUnitType: 'DURATION', startDate: '2026-01-01' });
  const group = await must('POST', '/v1/charge-groups', admin, { name: 'UK Mobile', chargeGroupCategoryId: category.id, startDate: '2026-01-01' });
  const sourceGroup = await must('POST', '/v1/reference-data-source-charge-groups', admin, { name: 'Mobile', code: 'MOB', chargeGroupId: group.id, referenceDataSourceId: source.id, startDate: '2026-01-01' });
  const feedGroup = await must('POST', '/v1/reference-data-source-charge-groups', admin, { name: 'Feed mobile', code: 'FMOB', chargeGroupId: group.id, referenceDataSourceId: feed.id, startDate: '2026-01-01' });
  await must('POST', '/v1/dialstrings', admin, { dialstring: '447', referenceDataSourceChargeGroupId: sourceGroup.id, startDate: '2026-01-01' });
  await must('POST', '/v1/dialstrings', admin, { dialstring: '4420', referenceDataSourceChargeGroupId: feedGroup.id, startDate: '2026-01-01' });
  await must('POST', '/v1/call-classes', admin, { callClass: 'MOBILE', referenceDataSourceChargeGroupId: sourceGroup.id, startDate: '2026-01-01' });
  // The feed's source is now maintained by the operator's feed: the API refuses changes (412).
  const patched = await fetch(`${base}/v1/reference-data-sources/${feed.id}`, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json-patch+json' },
    body: JSON.stringify([{ op: 'replace', path: '/siMaintained', value: true }]),
  });
  if (patched.status !== 200) throw new Error(`marking the feed siMaintained: ${patched.status} ${await patched.text()}`);
  await must('POST', '/v1/users', admin, { username: 'reader', password: READER_PASSWORD, roles: ['READ_ONLY'] });
  return { admin, acme, other, cycle, template, bakery, zenithCustomer, source, feed };
}

// ---- The browser.

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
// For work on the console's files only: serve them from this directory instead of the binary's
// embedded copies (the run then says so); CI never sets it.
if (process.env.CONSOLE_ASSETS_DIR) {
  const { readFileSync } = await import('node:fs');
  console.log(`console-e2e: assets from ${process.env.CONSOLE_ASSETS_DIR}, not from the binary`);
  await page.route('**/console/assets/*', (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop();
    route.fulfill({
      status: 200,
      contentType: name.endsWith('.css') ? 'text/css' : 'text/javascript',
      body: readFileSync(join(process.env.CONSOLE_ASSETS_DIR, name)),
    });
  });
}
page.setDefaultTimeout(15_000);
const problems = [];
/** Console errors a step provokes on purpose (a network failure it injects), as patterns. */
const expectedConsoleErrors = new Set();
page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
page.on('console', (message) => {
  if (message.type() === 'error' && !/the server responded with a status of (4\d\d)/.test(message.text())
    && ![...expectedConsoleErrors].some((pattern) => pattern.test(message.text()))) {
    problems.push(`console error: ${message.text()}`);
  }
});
// The tokens the page was given, read off the wire (the page itself never exposes them).
const tokens = { refresh: null, refreshes: 0 };
page.on('response', async (response) => {
  const url = response.url();
  if (response.request().method() === 'POST' && /\/v1\/authenticate(\/refresh)?$/.test(url) && response.status() === 200) {
    try {
      tokens.refresh = (await response.json()).refreshToken;
      if (url.endsWith('/refresh')) tokens.refreshes += 1;
    } catch { /* the body was already gone: a navigation */ }
  }
});

let step = 0;
async function check(name, body) {
  step += 1;
  const started = Date.now();
  try {
    await body();
  } catch (error) {
    console.error(`console-e2e: step ${step} FAILED: ${name}\n  ${error.stack || error}`);
    await page.screenshot({ path: failureShot, fullPage: true }).catch(() => {});
    console.error(`  screenshot of the page: ${failureShot}`);
    await browser.close();
    process.exit(1);
  }
  if (problems.length) {
    console.error(`console-e2e: step ${step} (${name}) left errors in the page:\n  ${problems.join('\n  ')}`);
    await browser.close();
    process.exit(1);
  }
  console.log(`console-e2e: ok ${step}. ${name} (${Date.now() - started} ms)`);
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

async function shot(name) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

async function signInAs(username, password) {
  await page.getByLabel('Username', { exact: true }).fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** The error text shown beside the control named `field` (`siteAddress.postcode`). */
function errorBeside(field) {
  return page.locator(`.field:has([data-field="${field}"]) .error`);
}

export { expectedConsoleErrors, check, expect, shot, signInAs, errorBeside, page, tokens, must, call, signInApi, seed, browser, base, LIMITED_PASSWORD, READER_PASSWORD, adminPassword };
