"""A whole flow through the Python client that openapi-python-client generates from the served
document, with no hand-written request or response handling (`cargo xtask clients`).

Signs in and refreshes, creates reference data and rates a number with it, creates a customer
and a site with contacts, lists with a filter, patches with If-Match (and gets 412 with a stale
one), and reads a problem+json. Every answer is the generated model of its documented response.
"""

import datetime
import os
import sys

from billing_service_client import AuthenticatedClient, Client
from billing_service_client.api.authentication import refresh_tokens, sign_in, sign_out
from billing_service_client.api.billing_cycles import create_billing_cycle
from billing_service_client.api.charge_group_categories import create_charge_group_category
from billing_service_client.api.charge_groups import create_charge_group
from billing_service_client.api.contract_owners import create_contract_owner
from billing_service_client.api.currencies import create_currency, get_currency, list_currencies, patch_currency
from billing_service_client.api.customers import create_customer
from billing_service_client.api.dialstrings import create_dialstring
from billing_service_client.api.invoice_templates import create_invoice_template
from billing_service_client.api.locales import create_locale
from billing_service_client.api.rating import rate_usage
from billing_service_client.api.reference_data_source_charge_groups import (
    create_reference_data_source_charge_group,
)
from billing_service_client.api.reference_data_sources import create_reference_data_source
from billing_service_client.api.sites import check_site, count_sites, create_site, get_site, list_sites
from billing_service_client.models import (
    BillingCycleInput,
    ChargeGroupCategoryInput,
    ChargeGroupInput,
    ChargingUnitType,
    ContactRole,
    ContractOwnerInput,
    CurrencyInput,
    CustomerInput,
    DialstringInput,
    InvoiceTemplateInput,
    InvoiceTemplateType,
    JsonPatchReplace,
    JsonPatchReplaceOp,
    LocaleInput,
    LocaleInputCountry,
    LocaleInputCurrency,
    PaymentMethod,
    Problem,
    RatingItem,
    RatingRequest,
    RatingResultOutcome,
    ReceiveBy,
    ReferenceDataSourceChargeGroupInput,
    ReferenceDataSourceInput,
    ReferenceDataSourceInputLocale,
    RefreshTokenRequest,
    SignIn,
    SiteInput,
    SiteInputSiteAddress,
    SiteInputSiteContactsItem,
    SiteInputSiteInvoiceDetailsType0,
    Tokens,
)

BASE_URL = os.environ["BILLING_URL"]
PASSWORD = os.environ["BILLING_ADMIN_PASSWORD"]
START = datetime.date(2026, 1, 1)


def check(condition, what):
    if not condition:
        sys.exit(f"python client flow: {what}")
    print(f"python client flow: ok {what}")


def created(response, what, status=201):
    if response.status_code != status:
        sys.exit(f"python client flow: {what}: {status} expected, got {response.status_code}: {response.content[:300]!r}")
    check(True, what)
    return response.parsed


anonymous = Client(base_url=BASE_URL, raise_on_unexpected_status=True)
first = sign_in.sync(client=anonymous, body=SignIn(username="admin", password=PASSWORD))
check(isinstance(first, Tokens) and first.token_type == "Bearer", "signed in")
tokens = refresh_tokens.sync(client=anonymous, body=RefreshTokenRequest(refresh_token=first.refresh_token))
check(isinstance(tokens, Tokens) and tokens.refresh_token != first.refresh_token, "refreshed, the token rotated")
api = AuthenticatedClient(base_url=BASE_URL, token=tokens.token, raise_on_unexpected_status=True)

gbp = created(
    create_currency.sync_detailed(
        client=api,
        body=CurrencyInput(
            code="GBP",
            symbol="£",
            major_currency_name="Pound",
            minor_currency_name="Penny",
            major_currency_format="£#,##0.00",
            minor_currency_format="#p",
            sales_tax_name="VAT",
        ),
    ),
    "a currency created",
)

page = list_currencies.sync_detailed(client=api, page=1, page_size=10, code="GBP")
check(page.status_code == 200 and page.headers["x-total-count"] == "1", "a filtered list with its total")
check([row.code for row in page.parsed] == ["GBP"], "the list's rows are models")

got = get_currency.sync_detailed(client=api, id=gbp.id)
etag = got.headers["etag"]
change = [JsonPatchReplace(op=JsonPatchReplaceOp.REPLACE, path="/salesTaxName", value="Sales tax")]
patched = patch_currency.sync_detailed(client=api, id=gbp.id, body=change, if_match=etag)
check(patched.status_code == 200 and patched.parsed.sales_tax_name == "Sales tax", "patched with If-Match")
stale = patch_currency.sync_detailed(client=api, id=gbp.id, body=change, if_match=etag)
check(stale.status_code == 412 and isinstance(stale.parsed, Problem), "a stale If-Match is a 412 problem")

refused = create_currency.sync_detailed(
    client=api,
    body=CurrencyInput(
        code="gbp",
        symbol="£",
        major_currency_name="Pound",
        minor_currency_name="Penny",
        major_currency_format="£#,##0.00",
        minor_currency_format="#p",
        sales_tax_name="VAT",
    ),
)
problem = refused.parsed
check(
    refused.status_code == 400 and isinstance(problem, Problem) and problem.errors[0].field == "code",
    "a broken field is a 400 problem naming it",
)

locale = created(
    create_locale.sync_detailed(
        client=api,
        body=LocaleInput(country=LocaleInputCountry(code="GB"), currency=LocaleInputCurrency(id=gbp.id)),
    ),
    "a locale created",
)
source = created(
    create_reference_data_source.sync_detailed(
        client=api,
        body=ReferenceDataSourceInput(
            name="Wholesale", locale=ReferenceDataSourceInputLocale(id=locale.id), si_maintained=False
        ),
    ),
    "a reference data source created",
)
category = created(
    create_charge_group_category.sync_detailed(
        client=api,
        body=ChargeGroupCategoryInput(name="Calls", charging_unit_type=ChargingUnitType.DURATION, start_date=START),
    ),
    "a charge group category created",
)
group = created(
    create_charge_group.sync_detailed(
        client=api,
        body=ChargeGroupInput(name="Leeds", charge_group_category_id=category.id, start_date=START),
    ),
    "a charge group created",
)
source_group = created(
    create_reference_data_source_charge_group.sync_detailed(
        client=api,
        body=ReferenceDataSourceChargeGroupInput(
            name="Leeds calls",
            code="LDS",
            charge_group_id=group.id,
            reference_data_source_id=source.id,
            start_date=START,
        ),
    ),
    "a source charge group created",
)
created(
    create_dialstring.sync_detailed(
        client=api,
        body=DialstringInput(dialstring="44113", reference_data_source_charge_group_id=source_group.id, start_date=START),
    ),
    "a dialstring created",
)
answer = rate_usage.sync(
    client=api,
    body=RatingRequest(
        reference_data_source_id=source.id,
        date=datetime.date(2026, 6, 1),
        items=[RatingItem(dialled_number="+44 113 496 0000"), RatingItem(call_class="NOWHERE")],
    ),
)
check(
    answer.results[0].outcome == RatingResultOutcome.DIALSTRING and answer.results[0].dialstring == "44113",
    "a number rated by its longest dialstring",
)
check(answer.results[1].outcome == RatingResultOutcome.UNRATED, "an unknown call class is unrated")

owner = created(
    create_contract_owner.sync_detailed(client=api, body=ContractOwnerInput(name="Northern Telecom")),
    "a contract owner created",
)
cycle = created(
    create_billing_cycle.sync_detailed(client=api, body=BillingCycleInput(name="Monthly")),
    "a billing cycle created",
)
template = created(
    create_invoice_template.sync_detailed(
        client=api, body=InvoiceTemplateInput(name="Standard", type_=InvoiceTemplateType.INVOICE)
    ),
    "an invoice template created",
)
customer = created(
    create_customer.sync_detailed(
        client=api,
        body=CustomerInput(
            customer_name="Acme Trading",
            customer_reference="ACME-1",
            contract_owner_id=owner.id,
            billing_cycle_id=cycle.id,
            start_date=START,
        ),
    ),
    "a customer created",
)
site = created(
    create_site.sync_detailed(
        client=api,
        body=SiteInput(
            customer_id=customer.id,
            site_name="Head office",
            site_reference="HO",
            start_date=START,
            site_address=SiteInputSiteAddress(address1="1 High Street", town="Leeds", postcode="LS1 4AP", country="GB"),
            site_contacts=[
                SiteInputSiteContactsItem(
                    contact_name="Ann", contact_role=ContactRole.ACCOUNTS, receive_invoice_by=ReceiveBy.POST
                ),
                SiteInputSiteContactsItem(contact_name="Ben", contact_role=ContactRole.TECHNICAL),
            ],
            site_invoice_details=SiteInputSiteInvoiceDetailsType0(
                invoice_template_id=template.id, payment_method=PaymentMethod.CHEQUE, payment_terms_in_days=30
            ),
        ),
    ),
    "a site with contacts created (200, as the interface has it)",
    status=200,
)
read = get_site.sync(client=api, id=site.id)
check([c.contact_name for c in read.site_contacts] == ["Ann", "Ben"], "the site's contacts read back")
check(read.site_address.town == "Leeds", "the site's address read back")
sites = list_sites.sync_detailed(client=api, page=1, page_size=10, customer_id=customer.id, fields="siteName")
check(sites.status_code == 200 and [row.site_name for row in sites.parsed] == ["Head office"], "sites of a customer, one field")
# HEAD: the answers have no body, errors included (the client must not try to read one).
checked = check_site.sync_detailed(client=api, id=site.id)
check(checked.status_code == 200 and checked.headers.get("etag"), "HEAD of the site: 200 with its ETag")
missing = check_site.sync_detailed(client=api, id=999999)
check(missing.status_code == 404, "HEAD of no site: 404 without a body")
refused = count_sites.sync_detailed(client=api, start_date="2024-02-30")
check(refused.status_code == 400, "HEAD with a date that does not exist: 400 without a body")
counted = count_sites.sync_detailed(client=api, customer_id=customer.id)
check(counted.status_code == 200 and counted.headers.get("x-total-count") == "1", "HEAD of the sites of a customer: 1")

signed_out = sign_out.sync_detailed(client=anonymous, body=RefreshTokenRequest(refresh_token=tokens.refresh_token))
check(signed_out.status_code == 204, "signed out")
again = refresh_tokens.sync_detailed(client=anonymous, body=RefreshTokenRequest(refresh_token=tokens.refresh_token))
check(again.status_code == 401 and isinstance(again.parsed, Problem), "a revoked refresh token is a 401 problem")
print("python client flow: every step passed")
