// A whole flow through the TypeScript client that openapi-typescript and openapi-fetch make of
// the served document, type-checked with `tsc --strict` and run with Node.js, with no
// hand-written types (`cargo xtask clients`).
//
// Signs in and refreshes, creates reference data and rates a number with it, creates a customer
// and a site with contacts, lists with a filter, patches with If-Match (and gets 412 with a stale
// one), and reads a problem+json.

import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Problem = components["schemas"]["Problem"];

const baseUrl = process.env.BILLING_URL ?? "";
const password = process.env.BILLING_ADMIN_PASSWORD ?? "";
const start = "2026-01-01";

function check(condition: boolean, what: string): void {
  if (!condition) {
    console.error(`typescript client flow: ${what}`);
    process.exit(1);
  }
  console.log(`typescript client flow: ok ${what}`);
}

/** The one record of a create's answer (a create body may also be an array, answered as one). */
function one<T>(data: T | T[] | undefined, what: string): T {
  if (data === undefined || Array.isArray(data)) {
    check(false, `${what}: one record expected`);
    throw new Error(what);
  }
  check(true, what);
  return data;
}

const anonymous = createClient<paths>({ baseUrl });
const first = await anonymous.POST("/v1/authenticate", { body: { username: "admin", password } });
check(first.data?.tokenType === "Bearer", "signed in");
const refreshed = await anonymous.POST("/v1/authenticate/refresh", {
  body: { refreshToken: first.data?.refreshToken ?? "" },
});
const tokens = refreshed.data;
check(tokens !== undefined && tokens.refreshToken !== first.data?.refreshToken, "refreshed, the token rotated");
const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${tokens?.token}` } });

const currencyBody: components["schemas"]["CurrencyInput"] = {
  code: "GBP",
  symbol: "£",
  majorCurrencyName: "Pound",
  minorCurrencyName: "Penny",
  majorCurrencyFormat: "£#,##0.00",
  minorCurrencyFormat: "#p",
  salesTaxName: "VAT",
};
const gbp = one((await api.POST("/v1/currencies", { body: currencyBody })).data, "a currency created");

const page = await api.GET("/v1/currencies", { params: { query: { page: 1, pageSize: 10, code: "GBP" } } });
check(page.response.headers.get("x-total-count") === "1", "a filtered list with its total");
check(page.data?.map((row) => row.code).join() === "GBP", "the list's rows are typed");

const got = await api.GET("/v1/currencies/{id}", { params: { path: { id: gbp.id } } });
const etag = got.response.headers.get("etag") ?? "";
const change: components["schemas"]["JsonPatch"] = [{ op: "replace", path: "/salesTaxName", value: "Sales tax" }];
// Sent as openapi-fetch sends every body (application/json), with no header set by hand: the
// service reads a JSON Patch under either type (docs/api.md, "Writes").
const patchOptions = {
  params: { path: { id: gbp.id }, header: { "If-Match": etag } },
  body: change,
};
const patched = await api.PATCH("/v1/currencies/{id}", patchOptions);
check(patched.data?.salesTaxName === "Sales tax", "patched with If-Match");
const stale = await api.PATCH("/v1/currencies/{id}", patchOptions);
const staleProblem: Problem | undefined = stale.error;
check(stale.response.status === 412 && staleProblem?.status === 412, "a stale If-Match is a 412 problem");

const refused = await api.POST("/v1/currencies", { body: { ...currencyBody, code: "gbp" } });
const problem: Problem | undefined = refused.error;
check(refused.response.status === 400 && problem?.errors?.[0]?.field === "code", "a broken field is a 400 problem naming it");

const locale = one(
  (await api.POST("/v1/locales", { body: { country: { code: "GB" }, currency: { id: gbp.id } } })).data,
  "a locale created",
);
const source = one(
  (await api.POST("/v1/reference-data-sources", { body: { name: "Wholesale", locale: { id: locale.id }, siMaintained: false } }))
    .data,
  "a reference data source created",
);
const category = one(
  (await api.POST("/v1/charge-group-categories", { body: { name: "Calls", chargingUnitType: "DURATION", startDate: start } }))
    .data,
  "a charge group category created",
);
const group = one(
  (await api.POST("/v1/charge-groups", { body: { name: "Leeds", chargeGroupCategoryId: category.id, startDate: start } })).data,
  "a charge group created",
);
const sourceGroup = one(
  (
    await api.POST("/v1/reference-data-source-charge-groups", {
      body: { name: "Leeds calls", code: "LDS", chargeGroupId: group.id, referenceDataSourceId: source.id, startDate: start },
    })
  ).data,
  "a source charge group created",
);
one(
  (await api.POST("/v1/dialstrings", { body: { dialstring: "44113", referenceDataSourceChargeGroupId: sourceGroup.id, startDate: start } }))
    .data,
  "a dialstring created",
);
const rated = await api.POST("/v1/rating/lookups", {
  body: {
    referenceDataSourceId: source.id,
    date: "2026-06-01",
    items: [{ dialledNumber: "+44 113 496 0000" }, { callClass: "NOWHERE" }],
  },
});
const results = rated.data?.results ?? [];
check(results[0]?.outcome === "DIALSTRING" && results[0]?.dialstring === "44113", "a number rated by its longest dialstring");
check(results[1]?.outcome === "UNRATED", "an unknown call class is unrated");

const owner = one((await api.POST("/v1/contract-owners", { body: { name: "Northern Telecom" } })).data, "a contract owner created");
const cycle = one((await api.POST("/v1/billing-cycles", { body: { name: "Monthly" } })).data, "a billing cycle created");
const template = one(
  (await api.POST("/v1/invoice-templates", { body: { name: "Standard", type: "INVOICE" } })).data,
  "an invoice template created",
);
const customer = one(
  (
    await api.POST("/v1/customers", {
      body: { customerName: "Acme Trading", customerReference: "ACME-1", contractOwnerId: owner.id, billingCycleId: cycle.id, startDate: start },
    })
  ).data,
  "a customer created",
);
const siteAnswer = await api.POST("/v1/sites", {
  body: {
    customerId: customer.id,
    siteName: "Head office",
    siteReference: "HO",
    startDate: start,
    siteAddress: { address1: "1 High Street", town: "Leeds", postcode: "LS1 4AP", country: "GB" },
    siteContacts: [
      { contactName: "Ann", contactRole: "ACCOUNTS", receiveInvoiceBy: "POST" },
      { contactName: "Ben", contactRole: "TECHNICAL" },
    ],
    siteInvoiceDetails: { invoiceTemplateId: template.id, paymentMethod: "CHEQUE", paymentTermsInDays: 30 },
  },
});
const site = one(siteAnswer.data, "a site with contacts created");
const read = await api.GET("/v1/sites/{id}", { params: { path: { id: site.id } } });
check(read.data?.siteContacts.map((contact) => contact.contactName).join() === "Ann,Ben", "the site's contacts read back");
const sites = await api.GET("/v1/sites", {
  params: { query: { page: 1, pageSize: 10, customerId: customer.id, fields: "siteName" } },
});
check(sites.data?.map((row) => row.siteName).join() === "Head office", "sites of a customer, one field");

const signedOut = await anonymous.POST("/v1/authenticate/revoke", { body: { refreshToken: tokens?.refreshToken ?? "" } });
check(signedOut.response.status === 204, "signed out");
const again = await anonymous.POST("/v1/authenticate/refresh", { body: { refreshToken: tokens?.refreshToken ?? "" } });
const revokedProblem: Problem | undefined = again.error;
check(again.response.status === 401 && revokedProblem?.status === 401, "a revoked refresh token is a 401 problem");
console.log("typescript client flow: every step passed");
