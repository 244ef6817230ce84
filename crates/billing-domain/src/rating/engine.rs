//! The rating index: every source's dialstrings in a digit trie (`trie.rs`), call classes and ignored
//! records in hash maps, and the source charge group → charge group → category chain.
//!
//! Changes are applied one record at a time; the caller passes the record as it was (it has
//! it: it just read it) so no per-record bookkeeping is kept. [`SharedRatingIndex`] gives
//! readers on other threads a consistent view while one writer changes it.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{RwLock, RwLockReadGuard};

use super::model::*;
use super::number::{DialledNumber, MAX_DIALSTRING_DIGITS};
use super::trie::{BulkEntry, DigitTrie, Walk, walk_all};

mod changes;

/// How many lookups [`RatingIndex::rate_many`] walks side by side (32 measured best here).
const LANES: usize = 32;
const _: () = assert!(LANES <= super::trie::MAX_WALKS);

/// A fast, non-cryptographic hasher for keys the service controls (ids, short codes).
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(5) ^ value).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_i64(&mut self, value: i64) {
        self.write_u64(value as u64);
    }

    fn write_u8(&mut self, value: u8) {
        self.write_u64(u64::from(value));
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A dated entry keyed by text (call classes, ignored records).
#[derive(Debug, Clone, Copy)]
struct Entry {
    range: DayRange,
    id: i64,
    source_charge_group_id: i64,
}

/// The entry in force on `day`: latest start, then larger id (the same rule as dialstrings).
fn in_force(entries: Option<&Vec<Entry>>, day: Day) -> Option<&Entry> {
    entries?
        .iter()
        .filter(|entry| entry.range.contains(day))
        .max_by_key(|entry| (entry.range.start, entry.id))
}

#[derive(Debug, Default)]
struct SourceIndex {
    dialstrings: DigitTrie,
    call_classes: FastMap<Box<str>, Vec<Entry>>,
    ignored_call_classes: FastMap<Box<str>, Vec<Entry>>,
}

/// Everything the index is built from.
#[derive(Debug, Clone, Default)]
pub struct Tariff {
    pub categories: Vec<ChargeGroupCategory>,
    pub charge_groups: Vec<ChargeGroup>,
    pub source_charge_groups: Vec<SourceChargeGroup>,
    pub dialstrings: Vec<DialstringRecord>,
    pub call_classes: Vec<CallClassRecord>,
    pub ignored_call_classes: Vec<IgnoredCallClassRecord>,
    pub ignored_service_ids: Vec<IgnoredServiceIdRecord>,
}

#[derive(Debug, Default)]
pub struct RatingIndex {
    categories: FastMap<i64, ChargeGroupCategory>,
    charge_groups: FastMap<i64, ChargeGroup>,
    source_charge_groups: FastMap<i64, SourceChargeGroup>,
    /// Dialstrings and call classes per source charge group (a group in use cannot move source).
    usage: FastMap<i64, u32>,
    /// Trie values are slots here: a source charge group id in 4 bytes instead of 8.
    slot_ids: Vec<i64>,
    slots: FastMap<i64, u32>,
    sources: FastMap<i64, SourceIndex>,
    ignored_service_ids: FastMap<Box<str>, Vec<Entry>>,
    /// The most words one source's dialstring trie may hold (see [`Self::with_word_limit`]).
    word_limit: Option<usize>,
}

/// The digits of a dialstring, checked: 2..=15 of them.
fn dialstring_digits(text: &str) -> Result<([u8; MAX_DIALSTRING_DIGITS], usize), ChangeError> {
    let bytes = text.as_bytes();
    if !(2..=MAX_DIALSTRING_DIGITS).contains(&bytes.len()) || !bytes.iter().all(u8::is_ascii_digit)
    {
        return Err(ChangeError::InvalidDialstring(text.to_owned()));
    }
    let mut digits = [0u8; MAX_DIALSTRING_DIGITS];
    for (slot, byte) in digits.iter_mut().zip(bytes) {
        *slot = byte - b'0';
    }
    Ok((digits, bytes.len()))
}

fn remove_entry(map: &mut FastMap<Box<str>, Vec<Entry>>, key: &str, id: i64) -> bool {
    let Some(entries) = map.get_mut(key) else {
        return false;
    };
    let before = entries.len();
    entries.retain(|entry| entry.id != id);
    let removed = entries.len() != before;
    if entries.is_empty() {
        map.remove(key);
    }
    removed
}

impl RatingIndex {
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty index whose sources' tries hold at most `words` 8-byte words each (the
    /// engine's own limit, about 134 million, when larger): past it a change or a build is
    /// refused with [`ChangeError::Capacity`]. Lets tests and operators reach the limit.
    pub fn with_word_limit(words: usize) -> Self {
        Self {
            word_limit: Some(words),
            ..Self::default()
        }
    }

    /// The most words one source's trie may hold.
    pub fn word_limit(&self) -> usize {
        self.word_limit
            .map_or(DigitTrie::default().limit(), |words| {
                DigitTrie::with_limit(words).limit()
            })
    }

    /// The index of `source`, made (with the index's word limit) when missing.
    fn source_mut(&mut self, source: i64) -> &mut SourceIndex {
        let limit = self.word_limit();
        self.sources.entry(source).or_insert_with(|| SourceIndex {
            dialstrings: DigitTrie::with_limit(limit),
            ..SourceIndex::default()
        })
    }

    /// Builds the index from a whole tariff.
    pub fn build(tariff: &Tariff) -> Result<Self, ChangeError> {
        Self::build_into(Self::new(), tariff)
    }

    /// Builds the index from a whole tariff, each source's trie limited to `words` words
    /// (see [`Self::with_word_limit`]).
    pub fn build_with_word_limit(tariff: &Tariff, words: usize) -> Result<Self, ChangeError> {
        Self::build_into(Self::with_word_limit(words), tariff)
    }

    fn build_into(mut index: Self, tariff: &Tariff) -> Result<Self, ChangeError> {
        for category in &tariff.categories {
            index.upsert_category(category.clone());
        }
        for group in &tariff.charge_groups {
            index.upsert_charge_group(group.clone());
        }
        for group in &tariff.source_charge_groups {
            index.upsert_source_charge_group(group.clone())?;
        }
        let mut per_source: FastMap<i64, Vec<BulkEntry>> = FastMap::default();
        for record in &tariff.dialstrings {
            let (digits, length) = dialstring_digits(&record.dialstring)?;
            let source = index.source_of(record.source_charge_group_id)?;
            per_source.entry(source).or_default().push(BulkEntry {
                digits,
                length: length as u8,
                range: DayRange::from_validity(&record.validity),
                record_id: record.id,
                value: index.slots[&record.source_charge_group_id],
            });
            index.count_use(record.source_charge_group_id, 1);
        }
        let limit = index.word_limit();
        for (source, entries) in per_source {
            let trie =
                DigitTrie::from_entries(entries, limit).map_err(|full| ChangeError::Capacity {
                    source_id: source,
                    limit_words: full.limit,
                })?;
            index.source_mut(source).dialstrings = trie;
        }
        for record in &tariff.call_classes {
            index.add_call_class(record)?;
        }
        for record in &tariff.ignored_call_classes {
            index.add_ignored_call_class(record);
        }
        for record in &tariff.ignored_service_ids {
            index.add_ignored_service_id(record);
        }
        Ok(index)
    }

    /// Rates one usage record.
    #[inline]
    pub fn rate(&self, request: &RatingRequest<'_>) -> Result<Rating, RatingError> {
        Ok(match self.rate_before_dialstrings(request)? {
            Step::Decided(rating) => rating,
            Step::Walk(source, number, day) => {
                match source.dialstrings.longest_match(&number, day) {
                    Some((version, length)) => self.dialstring_rating(version, length),
                    None => self.rate_call_class(source, request.call_class, day),
                }
            }
            Step::CallClassOnly(source, day) => {
                self.rate_call_class(source, request.call_class, day)
            }
        })
    }

    fn dialstring_rating(&self, version: super::trie::Version, length: usize) -> Rating {
        Rating {
            outcome: Outcome::Dialstring,
            matched: Matched::Dialstring {
                id: version.record_id,
                length: length as u8,
            },
            source_charge_group_id: Some(self.slot_ids[version.value as usize]),
        }
    }

    /// Rates a batch: the same answers as [`Self::rate`] for each request, in order, appended
    /// to `out`. Dialstring walks of up to 32 requests advance side by side, so their memory
    /// loads overlap: on a large tariff this is several times the throughput of one by one.
    pub fn rate_many(
        &self,
        requests: &[RatingRequest<'_>],
        out: &mut Vec<Result<Rating, RatingError>>,
    ) {
        let mut walks: Vec<Walk<'_>> = Vec::with_capacity(LANES);
        // Per walk: its place in the chunk, its source and day (for the call class fallback).
        let mut lanes: Vec<(usize, &SourceIndex, Day)> = Vec::with_capacity(LANES);
        for chunk in requests.chunks(LANES) {
            let first = out.len();
            walks.clear();
            lanes.clear();
            for (lane, request) in chunk.iter().enumerate() {
                match self.rate_before_dialstrings(request) {
                    Ok(Step::Decided(rating)) => out.push(Ok(rating)),
                    Ok(Step::Walk(source, number, day)) => {
                        walks.push(Walk::new(&source.dialstrings, &number, day));
                        lanes.push((lane, source, day));
                        out.push(Ok(Rating::UNRATED));
                    }
                    Ok(Step::CallClassOnly(source, day)) => {
                        out.push(Ok(self.rate_call_class(source, request.call_class, day)))
                    }
                    Err(error) => out.push(Err(error)),
                }
            }
            walk_all(&mut walks);
            for (walk, &(lane, source, day)) in walks.iter().zip(&lanes) {
                out[first + lane] = Ok(match walk.resolve() {
                    Some((version, length)) => self.dialstring_rating(version, length),
                    None => self.rate_call_class(source, chunk[lane].call_class, day),
                });
            }
        }
    }

    /// Everything before the dialstring walk: number syntax, ignored service id, source,
    /// ignored call class.
    fn rate_before_dialstrings<'s>(
        &'s self,
        request: &RatingRequest<'_>,
    ) -> Result<Step<'s>, RatingError> {
        let number = request.number()?;
        let day = day_of(request.date);
        if let Some(service_id) = request.service_id.filter(|s| !s.is_empty())
            && let Some(entry) = in_force(self.ignored_service_ids.get(service_id), day)
        {
            return Ok(Step::Decided(Rating {
                outcome: Outcome::Ignored,
                matched: Matched::IgnoredServiceId { id: entry.id },
                source_charge_group_id: None,
            }));
        }
        let Some(source) = self.sources.get(&request.reference_data_source_id) else {
            return Ok(Step::Decided(Rating::UNRATED));
        };
        if let Some(call_class) = request.call_class.filter(|c| !c.is_empty())
            && let Some(entry) = in_force(source.ignored_call_classes.get(call_class), day)
        {
            return Ok(Step::Decided(Rating {
                outcome: Outcome::Ignored,
                matched: Matched::IgnoredCallClass { id: entry.id },
                source_charge_group_id: None,
            }));
        }
        Ok(match number {
            Some(number) => Step::Walk(source, number, day),
            None => Step::CallClassOnly(source, day),
        })
    }

    /// The call class fallback, once no dialstring matched.
    fn rate_call_class(&self, source: &SourceIndex, call_class: Option<&str>, day: Day) -> Rating {
        let entry = call_class
            .filter(|c| !c.is_empty())
            .and_then(|call_class| in_force(source.call_classes.get(call_class), day));
        match entry {
            Some(entry) => Rating {
                outcome: Outcome::CallClass,
                matched: Matched::CallClass { id: entry.id },
                source_charge_group_id: Some(entry.source_charge_group_id),
            },
            None => Rating::UNRATED,
        }
    }

    /// The dates of the record that decided `rating` (as [`Self::rate`] gave it for
    /// `request`); `None` for [`Matched::None`].
    pub fn matched_range(&self, request: &RatingRequest<'_>, rating: &Rating) -> Option<DayRange> {
        let of = |entries: Option<&Vec<Entry>>, id: i64| {
            entries?
                .iter()
                .find(|entry| entry.id == id)
                .map(|entry| entry.range)
        };
        let source = || self.sources.get(&request.reference_data_source_id);
        match rating.matched {
            Matched::None => None,
            Matched::IgnoredServiceId { id } => {
                of(self.ignored_service_ids.get(request.service_id?), id)
            }
            Matched::IgnoredCallClass { id } => {
                of(source()?.ignored_call_classes.get(request.call_class?), id)
            }
            Matched::CallClass { id } => of(source()?.call_classes.get(request.call_class?), id),
            Matched::Dialstring { id, length } => {
                let number = request.number().ok()??;
                let mut digits = [0u8; u8::MAX as usize];
                let length = usize::from(length);
                for (slot, digit) in digits.iter_mut().zip(number.digits().take(length)) {
                    *slot = digit;
                }
                source()?
                    .dialstrings
                    .find(&digits[..length.min(number.len())], id)
                    .map(|version| version.range)
            }
        }
    }

    /// Words used and the limit of `source`'s dialstring trie.
    pub fn source_words(&self, source: i64) -> (usize, usize) {
        self.sources
            .get(&source)
            .map_or((0, self.word_limit()), |index| {
                (index.dialstrings.words(), index.dialstrings.limit())
            })
    }

    pub fn source_charge_group(&self, id: i64) -> Option<&SourceChargeGroup> {
        self.source_charge_groups.get(&id)
    }

    pub fn charge_group(&self, id: i64) -> Option<&ChargeGroup> {
        self.charge_groups.get(&id)
    }

    pub fn category(&self, id: i64) -> Option<&ChargeGroupCategory> {
        self.categories.get(&id)
    }

    /// Dialstrings held, over every source.
    pub fn dialstring_count(&self) -> usize {
        self.sources
            .values()
            .map(|source| source.dialstrings.len())
            .sum()
    }

    /// Bytes held by the dialstring tries (the part that grows with the tariff).
    pub fn dialstring_memory_bytes(&self) -> usize {
        self.sources
            .values()
            .map(|source| source.dialstrings.memory_bytes())
            .sum()
    }
}

impl super::reference::Rater for RatingIndex {
    fn rate(&self, request: &RatingRequest<'_>) -> Result<Rating, RatingError> {
        RatingIndex::rate(self, request)
    }

    fn rate_many(
        &self,
        requests: &[RatingRequest<'_>],
        out: &mut Vec<Result<Rating, RatingError>>,
    ) {
        RatingIndex::rate_many(self, requests, out)
    }
}

/// Where [`RatingIndex::rate_before_dialstrings`] left a request.
enum Step<'s> {
    Decided(Rating),
    Walk(&'s SourceIndex, DialledNumber, Day),
    CallClassOnly(&'s SourceIndex, Day),
}

/// A [`RatingIndex`] shared between threads: many readers, one writer at a time; a reader
/// never sees half a change. Hold one read guard for a batch of lookups.
#[derive(Debug, Default)]
pub struct SharedRatingIndex {
    inner: RwLock<RatingIndex>,
}

impl SharedRatingIndex {
    pub fn new(index: RatingIndex) -> Self {
        Self {
            inner: RwLock::new(index),
        }
    }

    pub fn read(&self) -> RwLockReadGuard<'_, RatingIndex> {
        self.inner
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Applies `change` under the write lock.
    pub fn write<T>(&self, change: impl FnOnce(&mut RatingIndex) -> T) -> T {
        let mut guard = self
            .inner
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        change(&mut guard)
    }
}
