// The console's end-to-end test, second half (docs/console.md): sessions and what each role
// sees — the token refreshed and rotated, names read again, sign-out revoking, a limited and a
// READ_ONLY user, a reload, signing out during a refresh, a user deactivated meanwhile. Run by
// flow.mjs after the operator's day, on the records it made.

import {
  check, expect, expectedConsoleErrors, page, shot, signInAs, tokens, must, call, signInApi, base, LIMITED_PASSWORD, adminPassword, READER_PASSWORD,
} from './lib.mjs';

export async function sessionSteps({ data, siteId, zenithNameRead }) {
  await check('the access token is refreshed (rotating the refresh token) before it expires, even when the first try fails on the network; what was typed stays', async () => {
    await page.goto(`${base}/console#/sites/new`);
    await page.getByRole('heading', { name: 'New site' }).waitFor();
    await page.getByLabel('Site name').fill('Half-typed work');
    // The first refresh never reaches the server (a reset connection); the console tries again.
    let presented = 0;
    expectedConsoleErrors.add(/net::ERR_CONNECTION_RESET/);
    await page.route('**/v1/authenticate/refresh', (route) => {
      presented += 1;
      return presented === 1 ? route.abort('connectionreset') : route.continue();
    });
    // The next timed refresh comes within the token's lifetime (one minute here).
    const refreshesBefore = tokens.refreshes;
    const deadline = Date.now() + 75_000;
    while (tokens.refreshes === refreshesBefore && Date.now() < deadline) await page.waitForTimeout(1000);
    await page.unroute('**/v1/authenticate/refresh');
    expectedConsoleErrors.clear();
    expect(tokens.refreshes > refreshesBefore, `no refresh within the token's lifetime (${presented} tried)`);
    expect(presented >= 2, `the refresh was not retried (${presented} tried)`);
    expect(await page.getByRole('heading', { name: 'New site' }).count() === 1, 'the session ended on one network failure');
    expect(await page.getByLabel('Site name').inputValue() === 'Half-typed work', 'what was typed is gone');
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('link', { name: "Bob's Bakery" }).waitFor();
  });

  await check('names are read again once a minute old: a contract owner renamed through the API shows its new name', async () => {
    const age = Date.now() - zenithNameRead;
    if (age < 61_000) await page.waitForTimeout(61_000 - age);
    await page.getByRole('link', { name: 'Sites', exact: true }).click();
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('cell', { name: `Zenith Networks plc (${data.other.id})`, exact: true }).first().waitFor();
  });

  await check('sign out revokes: the last refresh token no longer works', async () => {
    const last = tokens.refresh;
    const revoked = page.waitForResponse((r) => r.url().endsWith('/v1/authenticate/revoke'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect((await revoked).status() === 204, 'revoke was not 204');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const answer = await call('POST', '/v1/authenticate/refresh', null, { refreshToken: last });
    expect(answer.status === 401, `the old refresh token still works: ${answer.status}`);
  });

  await check('a user limited to one contract owner sees only its customers and no user administration', async () => {
    await signInAs('limited', LIMITED_PASSWORD);
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('link', { name: "Bob's Bakery" }).waitFor();
    expect(await page.getByRole('link', { name: 'Zed Corporation' }).count() === 0, 'another owner\'s customer is shown');
    await page.locator('.page-summary', { hasText: '(1 row)' }).waitFor();
    expect(await page.getByRole('link', { name: 'Users' }).count() === 0, 'Users is offered');
    expect(await page.getByRole('link', { name: 'Audit trail' }).count() === 0, 'Audit trail is offered');
    await shot('limited-user');
    // Contract owners: theirs may be changed, another's not, and none created (the API's 403).
    await page.goto(`${base}/console#/setup/contract-owners`);
    await page.getByRole('button', { name: 'Change Acme Telecom' }).waitFor();
    await page.getByRole('cell', { name: /^Zenith Networks/ }).waitFor();
    expect(await page.getByRole('button', { name: /^Change Zenith/ }).count() === 0, 'another owner can be changed');
    expect(await page.getByRole('heading', { name: 'New contract owner' }).count() === 0, 'a contract owner can be created');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  await check('a READ_ONLY user sees no edit controls', async () => {
    await signInAs('reader', READER_PASSWORD);
    await page.goto(`${base}/console#/sites/${siteId}`);
    await page.getByRole('heading', { name: 'Site Head office', exact: true }).waitFor();
    await page.getByRole('cell', { name: 'BROADBAND', exact: true }).waitFor();
    for (const control of ['Change this site', 'End site', 'Add inventory item']) {
      expect(await page.getByRole('link', { name: control }).count() + await page.getByRole('button', { name: control }).count() === 0, `${control} is offered`);
    }
    // No inventory item can be ended or removed either (CUSTOMERS_WRITE).
    expect(await page.getByRole('button', { name: /^(End|Remove) / }).count() === 0, 'an inventory item can be ended or removed');
    expect(await page.getByRole('columnheader', { name: 'Actions' }).count() === 0, 'the inventory has an Actions column');
    await page.goto(`${base}/console#/customers`);
    await page.getByRole('link', { name: "Bob's Bakery" }).waitFor();
    expect(await page.getByRole('button', { name: 'Create customer' }).count() === 0, 'Create customer is offered');
    await page.goto(`${base}/console#/reference-data/dialstrings`);
    await page.getByText('Your roles let you read these records, not change them.').waitFor();
    expect(await page.getByRole('button', { name: /^Change / }).count() === 0, 'Change is offered');
  });

  await check('a READ_ONLY user who types the address of a page their roles do not allow is told so, with no form', async () => {
    const asked = [];
    const watch = (request) => { if (/\/v1\/(users|audit-events)/.test(request.url())) asked.push(request.url()); };
    page.on('request', watch);
    for (const route of ['/users', '/audit', '/sites/new', `/sites/${siteId}/edit`]) {
      await page.goto(`${base}/console#${route}`);
      await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
      expect(await page.title() === 'Not allowed · Billing console', `${route}: ${await page.title()}`);
      expect(await page.locator('main form, main button, main table').count() === 0, `${route}: a form, button or table is offered`);
    }
    page.off('request', watch);
    expect(asked.length === 0, `the pages asked the API: ${asked.join(', ')}`);
    // Names that are members of every JavaScript object are no kind of record.
    for (const route of ['/reference-data/__proto__', '/setup/constructor', '/reference-data/hasOwnProperty']) {
      await page.goto(`${base}/console#${route}`);
      await page.waitForFunction(() => document.title === 'Not found · Billing console');
      expect(await page.getByText('Something went wrong').count() === 0, `${route}: an error page`);
    }
    await page.goto(`${base}/console#/customers`);
    await page.getByRole('link', { name: "Bob's Bakery" }).waitFor();
  });

  await check('a reload forgets the session: sign in again', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The session the reload dropped was not revoked; it ends with its tokens' lifetimes.
    expect((await signInApi('reader', READER_PASSWORD)).length > 0, 'reader can no longer sign in');
  });

  await check('signing out while a page load waits for a refresh leaves the sign-in form, not an error', async () => {
    await signInAs('admin', adminPassword);
    // The site's GET is answered 401 once (an expired token); the refresh it triggers is slow.
    await page.route(`**/v1/sites/${siteId}`, (route) => route.fulfill({
      status: 401, contentType: 'application/problem+json', body: '{"status":401,"title":"Unauthorized","detail":"expired"}',
    }), { times: 1 });
    await page.route('**/v1/authenticate/refresh', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await route.continue();
    }, { times: 1 });
    const refreshed = page.waitForResponse((response) => response.url().endsWith('/v1/authenticate/refresh'));
    await page.goto(`${base}/console#/sites/${siteId}`);
    await page.waitForTimeout(300);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await refreshed;
    await page.waitForTimeout(500);
    expect(await page.locator('#sign-in').count() === 1, 'the sign-in form is gone');
    expect(await page.getByText('Something went wrong').count() === 0, 'an error replaced the sign-in form');
    expect(await page.getByText('You are signed out.').count() === 1, 'the sign-out is not said');
    expect(await page.locator('#nav a').count() === 0, 'the sections are still offered');
  });

  await check('a user deactivated meanwhile gets the "session ended" sign-in form on their next page, not an error', async () => {
    const admin = await signInApi('admin', adminPassword);
    const user = await must('POST', '/v1/users', admin, { username: 'leaver', password: READER_PASSWORD, roles: ['READ_ONLY'] });
    await signInAs('leaver', READER_PASSWORD);
    await page.goto(`${base}/console#/customers`);
    await page.getByRole('heading', { name: 'Customers' }).waitFor();
    const answer = await call('PATCH', `/v1/users/${user.id}`, admin, [{ op: 'replace', path: '/active', value: false }], 'application/json-patch+json');
    expect(answer.status === 200, `deactivating: ${answer.status}`);
    await page.goto(`${base}/console#/sites/${siteId}`);
    await page.locator('#sign-in').waitFor();
    await page.waitForTimeout(1000);
    expect(await page.locator('#sign-in').count() === 1, 'the sign-in form is gone');
    expect(await page.getByText('Your session ended').count() === 1, 'the end of the session is not said');
    expect(!/Signed in/.test(await page.locator('#status').textContent()), 'the status bar still says the user is signed in');
    expect(await page.getByText('Something went wrong').count() === 0, 'an error replaced the sign-in form');
  });
  await check('an administrator who gives up their own ADMINISTRATOR role is asked first, then sees only what the new roles allow', async () => {
    const admin = await signInApi('admin', adminPassword);
    const user = await must('POST', '/v1/users', admin, { username: 'second-admin', password: READER_PASSWORD, roles: ['ADMINISTRATOR'] });
    await page.goto(`${base}/console`);
    await page.locator('#sign-in').waitFor();
    await signInAs('second-admin', READER_PASSWORD);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'Change roles of second-admin' }).click();
    const editor = page.getByRole('region', { name: 'Change roles' });
    await editor.getByRole('checkbox', { name: 'Administrator (ADMINISTRATOR)', exact: true }).uncheck();
    await editor.getByRole('checkbox', { name: 'Read only (READ_ONLY)', exact: true }).check();
    // Declined: nothing is sent.
    const declined = new Promise((resolve) => page.once('dialog', async (dialog) => { resolve(dialog.message()); await dialog.dismiss(); }));
    await page.getByRole('button', { name: 'Save roles' }).click();
    expect(/Give up your own ADMINISTRATOR role/.test(await declined), 'no confirmation asked');
    await page.waitForTimeout(300);
    expect((await must('GET', `/v1/users/${user.id}`, admin)).roles.includes('ADMINISTRATOR'), 'the role went without a confirmation');
    // Confirmed: the header and the sections follow the new roles at once.
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Save roles' }).click();
    await page.locator('#status', { hasText: 'Roles of second-admin changed.' }).waitFor();
    await page.getByRole('link', { name: 'Users' }).waitFor({ state: 'detached' });
    expect(!/ADMINISTRATOR/.test(await page.locator('#who').textContent()), `the header still says: ${await page.locator('#who').textContent()}`);
    expect((await must('GET', `/v1/users/${user.id}`, admin)).roles.join() === 'READ_ONLY', 'the roles were not changed');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#sign-in').waitFor();
  });
}
