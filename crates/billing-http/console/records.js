// What the record pages show: for each kind of record its collection, the columns, the list
// filters it offers (each one the API's own), the members a create or change sends, and the
// permission a user needs to change it. Two groups: reference data (what rating uses) and the
// customer set-up records that customers and sites name.

const dated = [['startDate', 'Start date', 'date', true], ['endDate', 'End date', 'date', false]];
const datedColumns = [['startDate', 'Start'], ['endDate', 'End']];
const inForce = ['endDate', 'In force after (date)', 'gtn'];
const yesNo = (v) => (v ? 'yes' : 'no');
// The code sets of the members below (a test compares each with the service's).
const TEMPLATE_TYPES = ['INVOICE', 'INVOICE_SUMMARY', 'ELECTRONIC_SUMMARY'];
const CHARGING_UNIT_TYPES = ['DURATION', 'MB', 'ONE_OFF'];
const MANDATE_PROVIDERS = ['PROVIDER_B', 'PROVIDER_C', 'PROVIDER_D'];

export const GROUPS = {
  'reference-data': {
    title: 'Reference data',
    kinds: {
      sources: {
        title: 'Reference data sources', path: '/v1/reference-data-sources', sort: 'name', write: 'REFERENCE_DATA_SOURCES_MANAGE',
        columns: [['name', 'Name'], ['locale', 'Locale', (l) => (l ? `${l.country.code} / ${l.currency.code} (${l.id})` : '')], ['siMaintained', 'Maintained by feed (siMaintained)', yesNo]],
        filters: [['name', 'Name contains', 'like'], ['siMaintained', 'Maintained by feed', 'bool']],
        fields: [['name', 'Name', 'text', true], ['locale.id', 'Locale id', 'id', true], ['siMaintained', 'Maintained by the feed (siMaintained)', 'bool', true]],
      },
      'source-charge-groups': {
        title: 'Source charge groups', path: '/v1/reference-data-source-charge-groups', sort: 'code', write: 'REFERENCE_DATA_WRITE', si: true,
        columns: [['code', 'Code'], ['name', 'Name'], ['chargeGroupId', 'Charge group'], ['referenceDataSourceId', 'Source'], ...datedColumns],
        filters: [['name', 'Name contains', 'like'], ['code', 'Code contains', 'like'], ['referenceDataSourceId', 'Source id', 'id'], ['chargeGroupId', 'Charge group id', 'id'], ['siMaintained', 'Source maintained by feed', 'bool'], inForce],
        fields: [['code', 'Code', 'text', true], ['name', 'Name', 'text', true], ['chargeGroupId', 'Charge group id', 'id', true], ['referenceDataSourceId', 'Source id', 'id', true], ...dated],
      },
      'charge-groups': {
        title: 'Charge groups', path: '/v1/charge-groups', sort: 'name', write: 'REFERENCE_DATA_WRITE',
        columns: [['name', 'Name'], ['chargeGroupCategoryId', 'Category'], ...datedColumns],
        filters: [['name', 'Name contains', 'like'], ['chargeGroupCategoryId', 'Category id', 'id'], inForce],
        fields: [['name', 'Name', 'text', true], ['chargeGroupCategoryId', 'Category id', 'id', true], ...dated],
      },
      dialstrings: {
        title: 'Dialstrings', path: '/v1/dialstrings', sort: 'dialstring', write: 'REFERENCE_DATA_WRITE', si: true,
        columns: [['dialstring', 'Dialstring'], ['referenceDataSourceChargeGroupId', 'Source charge group'], ...datedColumns],
        filters: [['dialstring', 'Dialstring contains', 'like'], ['referenceDataSourceChargeGroupId', 'Source charge group id', 'id'], inForce],
        fields: [['dialstring', 'Dialstring (2 to 15 digits)', 'text', true], ['referenceDataSourceChargeGroupId', 'Source charge group id', 'id', true], ...dated],
      },
      'call-classes': {
        title: 'Call classes', path: '/v1/call-classes', sort: 'callClass', write: 'REFERENCE_DATA_WRITE', si: true,
        columns: [['callClass', 'Call class'], ['referenceDataSourceChargeGroupId', 'Source charge group'], ...datedColumns],
        filters: [['callClass', 'Call class contains', 'like'], ['referenceDataSourceChargeGroupId', 'Source charge group id', 'id'], inForce],
        fields: [['callClass', 'Call class', 'text', true], ['referenceDataSourceChargeGroupId', 'Source charge group id', 'id', true], ...dated],
      },
      'ignored-call-classes': {
        title: 'Ignored call classes', path: '/v1/ignored-call-classes', sort: 'callClass', write: 'REFERENCE_DATA_WRITE', si: true,
        columns: [['callClass', 'Call class'], ['referenceDataSourceId', 'Source'], ...datedColumns],
        filters: [['callClass', 'Call class contains', 'like'], ['referenceDataSourceId', 'Source id', 'id'], inForce],
        fields: [['callClass', 'Call class', 'text', true], ['referenceDataSourceId', 'Source id', 'id', true], ...dated],
      },
      'ignored-service-ids': {
        title: 'Ignored service ids', path: '/v1/ignored-service-ids', sort: 'serviceId', write: 'REFERENCE_DATA_WRITE',
        columns: [['serviceId', 'Service id'], ['description', 'Description'], ...datedColumns],
        filters: [['serviceId', 'Service id contains', 'like'], inForce],
        fields: [['serviceId', 'Service id', 'text', true], ['description', 'Description', 'text', false], ...dated],
      },
      'charge-group-categories': {
        title: 'Charge group categories', path: '/v1/charge-group-categories', sort: 'name', write: 'REFERENCE_DATA_WRITE',
        columns: [['name', 'Name'], ['chargingUnitType', 'Charging unit'], ...datedColumns],
        filters: [['name', 'Name contains', 'like'], inForce],
        fields: [['name', 'Name', 'text', true], ['chargingUnitType', 'Charging unit', 'enum', true, CHARGING_UNIT_TYPES], ...dated],
      },
      currencies: {
        title: 'Currencies', path: '/v1/currencies', sort: 'code', write: 'REFERENCE_DATA_WRITE',
        columns: [['code', 'Code'], ['symbol', 'Symbol'], ['majorCurrencyName', 'Major unit'], ['minorCurrencyName', 'Minor unit'], ['salesTaxName', 'Sales tax']],
        filters: [['code', 'Code contains', 'like']],
        fields: [['code', 'ISO 4217 code', 'text', true], ['symbol', 'Symbol', 'text', true], ['majorCurrencyName', 'Major unit name', 'text', true],
          ['minorCurrencyName', 'Minor unit name', 'text', true], ['majorCurrencyFormat', 'Major format (e.g. £#,##0.00)', 'text', true],
          ['minorCurrencyFormat', 'Minor format (e.g. #p)', 'text', true], ['salesTaxName', 'Sales tax name', 'text', true]],
      },
      locales: {
        title: 'Locales', path: '/v1/locales', sort: 'country', write: 'REFERENCE_DATA_WRITE',
        columns: [['country', 'Country', (c) => `${c.name} (${c.code})`], ['currency', 'Currency', (c) => `${c.code} (${c.id})`]],
        filters: [['country', 'Country code', 'text'], ['currency', 'Currency id', 'id']],
        fields: [['country.code', 'Country (ISO code, e.g. GB)', 'text', true], ['currency.id', 'Currency id', 'id', true]],
      },
    },
  },
  setup: {
    title: 'Customer set-up',
    kinds: {
      'contract-owners': {
        title: 'Contract owners', path: '/v1/contract-owners', sort: 'name', write: 'CUSTOMERS_WRITE',
        // A user limited to contract owners changes only theirs and creates none (the API: 403).
        ownerOf: (row) => row.id,
        columns: [['name', 'Name'], ['subBrands', 'Sub-brands', (brands) => brands.map((b) => `${b.name} (${b.id})`).join(', ')]],
        filters: [['name', 'Name contains', 'like']],
        fields: [['name', 'Name', 'text', true]],
      },
      'billing-cycles': {
        title: 'Billing cycles', path: '/v1/billing-cycles', sort: 'name', write: 'CUSTOMERS_WRITE',
        columns: [['name', 'Name']],
        filters: [['name', 'Name contains', 'like']],
        fields: [['name', 'Name', 'text', true]],
      },
      'invoice-templates': {
        title: 'Invoice templates', path: '/v1/invoice-templates', sort: 'name', write: 'CUSTOMERS_WRITE',
        columns: [['name', 'Name'], ['type', 'Type']],
        filters: [['name', 'Name contains', 'like'], ['type', 'Type', 'enum', TEMPLATE_TYPES]],
        fields: [['name', 'Name', 'text', true], ['type', 'Type (set on creation)', 'enum', true, TEMPLATE_TYPES, { createOnly: true }]],
      },
      'custom-field-definitions': {
        title: 'Custom field definitions', path: '/v1/custom-field-definitions', sort: 'label', write: 'CUSTOMERS_WRITE',
        columns: [['label', 'Label']],
        filters: [['label', 'Label contains', 'like']],
        fields: [['label', 'Label', 'text', true]],
      },
      'payment-provider-mandates': {
        title: 'Payment provider mandates', path: '/v1/payment-provider-mandates', sort: 'mandateReference', write: 'CUSTOMERS_WRITE',
        columns: [['provider', 'Provider'], ['mandateReference', 'Reference'], ['status', 'Status'], ['thirdPartyCustomerReference', 'Third-party reference']],
        filters: [['mandateReference', 'Reference contains', 'like'], ['status', 'Status', 'text']],
        fields: [['provider', 'Provider', 'enum', true, MANDATE_PROVIDERS], ['mandateReference', 'Mandate reference', 'text', true],
          ['status', 'Status', 'text', true], ['thirdPartyCustomerReference', 'Third-party customer reference', 'text', false]],
      },
    },
  },
};

/**
 * The kind `name` of group `groupName`, or null: own members only, so that a route such as
 * `#/reference-data/__proto__` or `#/setup/constructor` names no kind (not `Object.prototype`).
 */
export function kindOf(groupName, name) {
  if (!Object.hasOwn(GROUPS, groupName)) return null;
  const group = GROUPS[groupName];
  return Object.hasOwn(group.kinds, name) ? group.kinds[name] : null;
}
