// The console's end-to-end test, answers that come late or fail (docs/console.md): a slow page
// load, a slow earlier search and a failing list never draw over what the operator asked for
// since. Run by flow.mjs on the sites it made.

import { check, expect, page, base } from './lib.mjs';

/** The steps; returns when the console last read the name of Zed Corporation's contract owner
 * (Zenith Networks), for the session steps that check it is read again. */
export async function lateAnswerSteps({ siteId, listSite }) {
  let zenithNameRead = null;
  await check('a slow page load does not draw over the page the URL names since', async () => {
    const slowSite = `**/v1/sites/${siteId}`;
    let slow = true;
    await page.route(slowSite, async (route) => {
      if (slow) { slow = false; await new Promise((resolve) => setTimeout(resolve, 2500)); }
      await route.continue();
    });
    const slowAnswer = page.waitForResponse((response) => response.url().endsWith(`/v1/sites/${siteId}`));
    await page.goto(`${base}/console#/sites/${siteId}`);
    await page.waitForTimeout(200);
    await page.goto(`${base}/console#/sites/${listSite.id}`);
    await page.getByRole('heading', { name: 'Site Depot', exact: true }).waitFor();
    await slowAnswer;
    await page.waitForTimeout(500);
    await page.unroute(slowSite);
    const title = await page.locator('h1').textContent();
    const edit = await page.getByRole('link', { name: 'Change this site' }).getAttribute('href');
    expect(title === 'Site Depot' && edit === `#/sites/${listSite.id}/edit`, `under #/sites/${listSite.id}: "${title}", its change link ${edit}`);
  });

  await check('a slow earlier search answer does not replace a later one', async () => {
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('heading', { name: 'Customers' }).waitFor();
    const slowSearch = /\/v1\/customers\?.*customerName=like%3Abakery/;
    await page.route(slowSearch, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 2500));
      await route.continue();
    });
    const slowAnswer = page.waitForResponse((response) => slowSearch.test(response.url()));
    await page.getByLabel('Name contains').fill('bakery');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForTimeout(200);
    await page.getByLabel('Name contains').fill('zed');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'Zed Corporation' }).waitFor();
    zenithNameRead = Date.now();
    await slowAnswer;
    await page.waitForTimeout(500);
    await page.unroute(slowSearch);
    expect(await page.getByRole('link', { name: "Bob's Bakery" }).count() === 0, 'the earlier search\'s answer replaced the later one');
    expect(await page.getByRole('link', { name: 'Zed Corporation' }).count() === 1, 'the later search\'s answer is gone');
  });

  await check('a list that fails shows no stale page summary and offers no paging', async () => {
    const refused = /\/v1\/customers\?.*customerName=like%3Arefused/;
    await page.route(refused, (route) => route.fulfill({
      status: 403, contentType: 'application/problem+json', body: '{"status":403,"title":"Forbidden","detail":"not for you"}',
    }));
    await page.getByLabel('Name contains').fill('refused');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.table-holder .form-error', { hasText: 'not for you' }).waitFor();
    await page.unroute(refused);
    const summary = await page.locator('.page-summary').textContent();
    expect(summary === '', `the last page's summary is still shown: ${summary}`);
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()
      && await page.getByRole('button', { name: 'Next page' }).isDisabled(), 'paging is offered after a failure');
  });
  return zenithNameRead;
}
