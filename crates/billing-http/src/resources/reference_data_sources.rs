//! `/v1/reference-data-sources` (4.2): read by every reference data reader; created, changed
//! and removed only by administrators (decisions §3).

use billing_auth::AuthenticatedUser;
use billing_domain::query::{FilterKind, ListQuery};
use billing_domain::reference_data::ReferenceDataSourceDraft;
use billing_domain::roles::Permission;
use billing_persistence::DbConnection;
use billing_persistence::locales;
use billing_persistence::reference_data_sources::{
    self, ReferenceDataSourceChanges, ReferenceDataSourceView,
};
use serde::{Deserialize, Serialize};

use super::common::{ID, require_reference};
use super::locales::{LOCALE_FIELDS, Locale};
use crate::machinery::resource::{
    ApiResult, Field, FieldType, FilterParam, Operations, Resource, page, still_referenced,
};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceDataSource {
    pub id: i64,
    pub name: String,
    pub locale: Locale,
    pub si_maintained: bool,
    #[serde(skip)]
    pub version: i64,
}

impl From<ReferenceDataSourceView> for ReferenceDataSource {
    fn from((source, locale, country, currency): ReferenceDataSourceView) -> Self {
        Self {
            id: source.id,
            name: source.name,
            locale: Locale::from((locale, country, currency)),
            si_maintained: source.si_maintained,
            version: source.version,
        }
    }
}

/// `{id}` of a locale; its other members may be present and are ignored.
#[derive(Debug, Deserialize, garde::Validate)]
pub struct LocaleReference {
    #[garde(range(min = 1))]
    pub id: i64,
}

#[derive(Debug, Deserialize, garde::Validate)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReferenceDataSourceInput {
    #[garde(length(chars, min = 1, max = 50))]
    pub name: String,
    #[garde(dive)]
    pub locale: LocaleReference,
    #[garde(skip)]
    pub si_maintained: bool,
}

pub struct ReferenceDataSources;

fn draft(
    connection: &mut DbConnection,
    input: &ReferenceDataSourceInput,
) -> ApiResult<ReferenceDataSourceDraft> {
    let draft = ReferenceDataSourceDraft::parse(&input.name, input.locale.id, input.si_maintained)?;
    require_reference(
        locales::exists(connection, draft.locale_id)?,
        "locale.id",
        "locale",
        draft.locale_id,
    )?;
    Ok(draft)
}

impl Resource for ReferenceDataSources {
    const PATH: &'static str = "reference-data-sources";
    const NOUN: &'static str = "reference data source";
    const DESCRIPTION: &'static str = "Where reference data comes from. siMaintained = true: maintained only by the operator's feed; \
        its data cannot be changed through the API (412). Sources themselves are managed by administrators. Names are unique.";
    const READ: Permission = Permission::ReadReferenceData;
    const WRITE: Permission = Permission::ManageReferenceDataSources;
    const OPERATIONS: Operations = Operations::ALL;
    const FIELDS: &'static [Field] = &[
        ID,
        Field::required(
            "name",
            FieldType::Text { min: 1, max: 50 },
            "Name of the source.",
        ),
        Field::required(
            "locale",
            FieldType::Object(LOCALE_FIELDS),
            "The locale; only id is read on input.",
        ),
        Field::required(
            "siMaintained",
            FieldType::Boolean,
            "true: maintained only by the operator; false: through this interface.",
        ),
    ];
    const FILTERS: &'static [FilterParam] = &[
        FilterParam::new("name", FilterKind::String, "Filter on the name."),
        FilterParam::new("locale", FilterKind::Id, "Filter on the locale id."),
        FilterParam::new(
            "siMaintained",
            FilterKind::Boolean,
            "Automatically (true) or manually (false) maintained.",
        ),
    ];
    const SORT_KEYS: &'static [&'static str] = &["id", "name", "siMaintained"];

    type Record = ReferenceDataSource;
    type Input = ReferenceDataSourceInput;

    fn list(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        query: &ListQuery,
    ) -> ApiResult<(Vec<ReferenceDataSource>, i64)> {
        Ok(page(reference_data_sources::list(connection, query)?))
    }

    fn find(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        id: i64,
    ) -> ApiResult<Option<ReferenceDataSource>> {
        Ok(reference_data_sources::find(connection, id)?.map(ReferenceDataSource::from))
    }

    fn create(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        input: ReferenceDataSourceInput,
    ) -> ApiResult<ReferenceDataSource> {
        let draft = draft(connection, &input)?;
        let row =
            reference_data_sources::insert(connection, &ReferenceDataSourceChanges::from(&draft))?;
        let record = Self::find(connection, caller, row.id)?
            .ok_or_else(|| crate::error::ApiError::internal("created source vanished"))?;
        // Lookups show the source's name: rating follows its changes.
        crate::live_rating::record_change(connection, Self::PATH, record.id, None, Some(&record))?;
        Ok(record)
    }

    fn replace(
        connection: &mut DbConnection,
        caller: &AuthenticatedUser,
        current: &ReferenceDataSource,
        input: ReferenceDataSourceInput,
        _: &crate::machinery::resource::WriteRequest,
    ) -> ApiResult<Option<ReferenceDataSource>> {
        let draft = draft(connection, &input)?;
        match reference_data_sources::update(
            connection,
            current.id,
            current.version,
            &ReferenceDataSourceChanges::from(&draft),
        )? {
            Some(row) => {
                let record = Self::find(connection, caller, row.id)?;
                crate::live_rating::record_change(
                    connection,
                    Self::PATH,
                    current.id,
                    Some(current),
                    record.as_ref(),
                )?;
                Ok(record)
            }
            None => Ok(None),
        }
    }

    fn delete(
        connection: &mut DbConnection,
        _: &AuthenticatedUser,
        current: &ReferenceDataSource,
    ) -> ApiResult<bool> {
        if reference_data_sources::has_charge_groups(connection, current.id)? {
            return Err(still_referenced(
                "reference data source",
                current.id,
                "its source charge groups",
            ));
        }
        let deleted = reference_data_sources::delete(connection, current.id, current.version)?;
        if deleted {
            crate::live_rating::record_change(
                connection,
                Self::PATH,
                current.id,
                Some(current),
                None,
            )?;
        }
        Ok(deleted)
    }

    fn after_commit(state: &crate::state::AppState) {
        crate::live_rating::LiveRating::after_commit(state)
    }
}

impl crate::machinery::resource::Versioned for ReferenceDataSource {
    fn id(&self) -> i64 {
        self.id
    }

    fn version(&self) -> i64 {
        self.version
    }

    /// The source's, then its locale's (which include the currency's).
    fn shown_versions(&self) -> Vec<i64> {
        let mut versions = vec![self.version];
        versions.extend(self.locale.shown_versions());
        versions
    }
}
