//! One-record changes to the index: each takes the record as it was stored (the caller just
//! read it), so no per-record bookkeeping is kept.

use super::*;

impl RatingIndex {
    pub fn upsert_category(&mut self, category: ChargeGroupCategory) {
        self.categories.insert(category.id, category);
    }

    pub fn remove_category(&mut self, id: i64) -> bool {
        self.categories.remove(&id).is_some()
    }

    pub fn upsert_charge_group(&mut self, group: ChargeGroup) {
        self.charge_groups.insert(group.id, group);
    }

    pub fn remove_charge_group(&mut self, id: i64) -> bool {
        self.charge_groups.remove(&id).is_some()
    }

    /// Adds or changes a source charge group. Moved to another source, it takes its
    /// dialstrings and call classes along; when they do not surely fit there
    /// ([`ChangeError::Capacity`]), nothing changes.
    pub fn upsert_source_charge_group(
        &mut self,
        group: SourceChargeGroup,
    ) -> Result<(), ChangeError> {
        if let Some(existing) = self.source_charge_groups.get(&group.id)
            && existing.reference_data_source_id != group.reference_data_source_id
            && self.usage.get(&group.id).is_some_and(|count| *count > 0)
        {
            let from = existing.reference_data_source_id;
            self.move_records(group.id, from, group.reference_data_source_id)?;
        }
        if !self.slots.contains_key(&group.id) {
            self.slots.insert(group.id, self.slot_ids.len() as u32);
            self.slot_ids.push(group.id);
        }
        self.source_charge_groups.insert(group.id, group);
        Ok(())
    }

    /// Moves the dialstrings and call classes of source charge group `id` from source
    /// `from`'s index to source `to`'s (their counts of use stay the group's).
    fn move_records(&mut self, id: i64, from: i64, to: i64) -> Result<(), ChangeError> {
        let slot = self.slots[&id];
        let dialstrings = self
            .sources
            .get(&from)
            .map(|index| index.dialstrings.entries_with_value(slot))
            .unwrap_or_default();
        let target = self.source_mut(to);
        if !target.dialstrings.has_room_for(dialstrings.len()) {
            return Err(ChangeError::Capacity {
                source_id: to,
                limit_words: target.dialstrings.limit(),
            });
        }
        let mut call_classes = Vec::new();
        if let Some(index) = self.sources.get_mut(&from) {
            for (digits, version) in &dialstrings {
                index.dialstrings.remove(digits, version.record_id);
            }
            for (name, entries) in index.call_classes.iter_mut() {
                entries.retain(|entry| {
                    let moves = entry.source_charge_group_id == id;
                    if moves {
                        call_classes.push((name.clone(), *entry));
                    }
                    !moves
                });
            }
            index.call_classes.retain(|_, entries| !entries.is_empty());
        }
        let target = self.source_mut(to);
        for (digits, version) in dialstrings {
            target
                .dialstrings
                .insert(&digits, version.range, version.record_id, slot)
                .map_err(|full| ChangeError::Capacity {
                    source_id: to,
                    limit_words: full.limit,
                })?;
        }
        for (name, entry) in call_classes {
            target.call_classes.entry(name).or_default().push(entry);
        }
        Ok(())
    }

    pub fn remove_source_charge_group(&mut self, id: i64) -> Result<bool, ChangeError> {
        if self.usage.get(&id).is_some_and(|count| *count > 0) {
            return Err(ChangeError::StillUsed(id));
        }
        Ok(self.source_charge_groups.remove(&id).is_some())
    }

    pub(super) fn source_of(&self, source_charge_group_id: i64) -> Result<i64, ChangeError> {
        self.source_charge_groups
            .get(&source_charge_group_id)
            .map(|group| group.reference_data_source_id)
            .ok_or(ChangeError::UnknownSourceChargeGroup(
                source_charge_group_id,
            ))
    }

    pub(super) fn count_use(&mut self, source_charge_group_id: i64, delta: i32) {
        let count = self.usage.entry(source_charge_group_id).or_default();
        *count = count.saturating_add_signed(delta);
    }

    pub fn add_dialstring(&mut self, record: &DialstringRecord) -> Result<(), ChangeError> {
        let (digits, length) = dialstring_digits(&record.dialstring)?;
        let source = self.source_of(record.source_charge_group_id)?;
        let slot = self.slots[&record.source_charge_group_id];
        let range = DayRange::from_validity(&record.validity);
        self.source_mut(source)
            .dialstrings
            .insert(&digits[..length], range, record.id, slot)
            .map_err(|full| ChangeError::Capacity {
                source_id: source,
                limit_words: full.limit,
            })?;
        self.count_use(record.source_charge_group_id, 1);
        Ok(())
    }

    /// Removes `record` as it was stored; false when it was not there.
    pub fn remove_dialstring(&mut self, record: &DialstringRecord) -> bool {
        let (Ok((digits, length)), Ok(source)) = (
            dialstring_digits(&record.dialstring),
            self.source_of(record.source_charge_group_id),
        ) else {
            return false;
        };
        let removed = self
            .sources
            .get_mut(&source)
            .is_some_and(|index| index.dialstrings.remove(&digits[..length], record.id));
        if removed {
            self.count_use(record.source_charge_group_id, -1);
        }
        removed
    }

    /// Replaces `before` by `after` (a changed prefix, group or dates); on error nothing changes.
    pub fn replace_dialstring(
        &mut self,
        before: &DialstringRecord,
        after: &DialstringRecord,
    ) -> Result<(), ChangeError> {
        dialstring_digits(&after.dialstring)?;
        self.source_of(after.source_charge_group_id)?;
        let source = self.source_of(after.source_charge_group_id)?;
        if let Some(index) = self.sources.get(&source)
            && !index.dialstrings.has_room()
        {
            return Err(ChangeError::Capacity {
                source_id: source,
                limit_words: index.dialstrings.limit(),
            });
        }
        self.remove_dialstring(before);
        self.add_dialstring(after)
    }

    pub fn add_call_class(&mut self, record: &CallClassRecord) -> Result<(), ChangeError> {
        let source = self.source_of(record.source_charge_group_id)?;
        let entry = Entry {
            range: DayRange::from_validity(&record.validity),
            id: record.id,
            source_charge_group_id: record.source_charge_group_id,
        };
        self.source_mut(source)
            .call_classes
            .entry(record.call_class.as_str().into())
            .or_default()
            .push(entry);
        self.count_use(record.source_charge_group_id, 1);
        Ok(())
    }

    pub fn remove_call_class(&mut self, record: &CallClassRecord) -> bool {
        let Ok(source) = self.source_of(record.source_charge_group_id) else {
            return false;
        };
        let removed = self.sources.get_mut(&source).is_some_and(|index| {
            remove_entry(&mut index.call_classes, &record.call_class, record.id)
        });
        if removed {
            self.count_use(record.source_charge_group_id, -1);
        }
        removed
    }

    pub fn add_ignored_call_class(&mut self, record: &IgnoredCallClassRecord) {
        let entry = Entry {
            range: DayRange::from_validity(&record.validity),
            id: record.id,
            source_charge_group_id: 0,
        };
        self.source_mut(record.reference_data_source_id)
            .ignored_call_classes
            .entry(record.call_class.as_str().into())
            .or_default()
            .push(entry);
    }

    pub fn remove_ignored_call_class(&mut self, record: &IgnoredCallClassRecord) -> bool {
        self.sources
            .get_mut(&record.reference_data_source_id)
            .is_some_and(|index| {
                remove_entry(
                    &mut index.ignored_call_classes,
                    &record.call_class,
                    record.id,
                )
            })
    }

    pub fn add_ignored_service_id(&mut self, record: &IgnoredServiceIdRecord) {
        let entry = Entry {
            range: DayRange::from_validity(&record.validity),
            id: record.id,
            source_charge_group_id: 0,
        };
        self.ignored_service_ids
            .entry(record.service_id.as_str().into())
            .or_default()
            .push(entry);
    }

    pub fn remove_ignored_service_id(&mut self, record: &IgnoredServiceIdRecord) -> bool {
        remove_entry(&mut self.ignored_service_ids, &record.service_id, record.id)
    }
}
