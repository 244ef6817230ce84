//! The reference data of the operator's feed, whole: what `billing import reference-data`
//! loads, `billing export reference-data` writes and rating reads, with every column (the
//! [`Tariff`] the engine is built from drops the dates of the records above a match).

use std::collections::HashMap;

use super::engine::Tariff;
use super::model::*;
use crate::dates::Validity;
use crate::reference_data::ChargingUnitType;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedCategory {
    pub id: i64,
    pub name: String,
    pub charging_unit_type: ChargingUnitType,
    pub validity: Validity,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedChargeGroup {
    pub id: i64,
    pub name: String,
    pub charge_group_category_id: i64,
    pub validity: Validity,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedSourceChargeGroup {
    pub id: i64,
    pub name: String,
    pub code: String,
    pub charge_group_id: i64,
    pub reference_data_source_id: i64,
    pub validity: Validity,
}

/// Every record rating reads, with all their columns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Feed {
    pub categories: Vec<FeedCategory>,
    pub charge_groups: Vec<FeedChargeGroup>,
    pub source_charge_groups: Vec<FeedSourceChargeGroup>,
    pub dialstrings: Vec<DialstringRecord>,
    pub call_classes: Vec<CallClassRecord>,
    pub ignored_call_classes: Vec<IgnoredCallClassRecord>,
    pub ignored_service_ids: Vec<IgnoredServiceIdRecord>,
    /// The descriptions of `ignored_service_ids`, by id (the engine does not read them).
    pub ignored_service_id_descriptions: HashMap<i64, String>,
}

/// What a lookup shows besides the engine's answer: the sources' names and the dates of the
/// records above a match (kept next to the index, changed with it).
#[derive(Debug, Clone, Default)]
pub struct Labels {
    pub source_names: HashMap<i64, String>,
    pub category_dates: HashMap<i64, Validity>,
    pub charge_group_dates: HashMap<i64, Validity>,
    pub source_charge_group_dates: HashMap<i64, Validity>,
}

impl Feed {
    /// The records the engine is built from (the same data, without what it does not read).
    pub fn tariff(&self) -> Tariff {
        Tariff {
            categories: self
                .categories
                .iter()
                .map(|c| ChargeGroupCategory {
                    id: c.id,
                    name: c.name.clone(),
                    charging_unit_type: c.charging_unit_type,
                })
                .collect(),
            charge_groups: self
                .charge_groups
                .iter()
                .map(|g| ChargeGroup {
                    id: g.id,
                    name: g.name.clone(),
                    charge_group_category_id: g.charge_group_category_id,
                })
                .collect(),
            source_charge_groups: self
                .source_charge_groups
                .iter()
                .map(|g| SourceChargeGroup {
                    id: g.id,
                    name: g.name.clone(),
                    code: g.code.clone(),
                    charge_group_id: g.charge_group_id,
                    reference_data_source_id: g.reference_data_source_id,
                })
                .collect(),
            dialstrings: self.dialstrings.clone(),
            call_classes: self.call_classes.clone(),
            ignored_call_classes: self.ignored_call_classes.clone(),
            ignored_service_ids: self.ignored_service_ids.clone(),
        }
    }

    /// The dates of the records above a match, by id.
    pub fn labels(&self, source_names: HashMap<i64, String>) -> Labels {
        Labels {
            source_names,
            category_dates: self.categories.iter().map(|c| (c.id, c.validity)).collect(),
            charge_group_dates: self
                .charge_groups
                .iter()
                .map(|g| (g.id, g.validity))
                .collect(),
            source_charge_group_dates: self
                .source_charge_groups
                .iter()
                .map(|g| (g.id, g.validity))
                .collect(),
        }
    }

    /// The sources whose data the feed holds: those of its source charge groups and ignored
    /// call classes, ascending.
    pub fn sources(&self) -> Vec<i64> {
        let mut sources: Vec<i64> = self
            .source_charge_groups
            .iter()
            .map(|g| g.reference_data_source_id)
            .chain(
                self.ignored_call_classes
                    .iter()
                    .map(|c| c.reference_data_source_id),
            )
            .collect();
        sources.sort_unstable();
        sources.dedup();
        sources
    }
}
