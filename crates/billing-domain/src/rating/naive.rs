//! The obvious implementation: a linear scan over every record. Slow and plainly right; the
//! engine is tested against it.

use super::engine::Tariff;
use super::model::*;

pub struct NaiveRater<'a> {
    pub tariff: &'a Tariff,
}

impl NaiveRater<'_> {
    fn source_of(&self, source_charge_group_id: i64) -> Option<i64> {
        self.tariff
            .source_charge_groups
            .iter()
            .find(|group| group.id == source_charge_group_id)
            .map(|group| group.reference_data_source_id)
    }
}

impl super::reference::Rater for NaiveRater<'_> {
    fn rate(&self, request: &RatingRequest<'_>) -> Result<Rating, RatingError> {
        let number = request.number()?;
        let day = day_of(request.date);
        let source = request.reference_data_source_id;
        let best = |candidates: Vec<(DayRange, i64)>| {
            candidates
                .into_iter()
                .max_by_key(|(range, id)| (range.start, *id))
        };
        if let Some(service_id) = request.service_id.filter(|s| !s.is_empty()) {
            let ignored = self
                .tariff
                .ignored_service_ids
                .iter()
                .map(|r| (DayRange::from_validity(&r.validity), r.id, &r.service_id))
                .filter(|(range, _, s)| s.as_str() == service_id && range.contains(day))
                .map(|(range, id, _)| (range, id))
                .collect();
            if let Some((_, id)) = best(ignored) {
                return Ok(Rating {
                    outcome: Outcome::Ignored,
                    matched: Matched::IgnoredServiceId { id },
                    source_charge_group_id: None,
                });
            }
        }
        let call_class = request.call_class.filter(|c| !c.is_empty());
        if let Some(call_class) = call_class {
            let ignored = self
                .tariff
                .ignored_call_classes
                .iter()
                .filter(|r| r.reference_data_source_id == source && r.call_class == call_class)
                .map(|r| (DayRange::from_validity(&r.validity), r.id))
                .filter(|(range, _)| range.contains(day))
                .collect();
            if let Some((_, id)) = best(ignored) {
                return Ok(Rating {
                    outcome: Outcome::Ignored,
                    matched: Matched::IgnoredCallClass { id },
                    source_charge_group_id: None,
                });
            }
        }
        if let Some(number) = number {
            let text = number.prefix_text(15);
            let matching: Vec<&DialstringRecord> = self
                .tariff
                .dialstrings
                .iter()
                .filter(|r| self.source_of(r.source_charge_group_id) == Some(source))
                .filter(|r| text.starts_with(r.dialstring.as_str()))
                .filter(|r| DayRange::from_validity(&r.validity).contains(day))
                .collect();
            let winner = matching.iter().max_by_key(|r| {
                (
                    r.dialstring.len(),
                    DayRange::from_validity(&r.validity).start,
                    r.id,
                )
            });
            if let Some(winner) = winner {
                return Ok(Rating {
                    outcome: Outcome::Dialstring,
                    matched: Matched::Dialstring {
                        id: winner.id,
                        length: winner.dialstring.len() as u8,
                    },
                    source_charge_group_id: Some(winner.source_charge_group_id),
                });
            }
        }
        if let Some(call_class) = call_class {
            let winner = self
                .tariff
                .call_classes
                .iter()
                .filter(|r| {
                    r.call_class == call_class
                        && self.source_of(r.source_charge_group_id) == Some(source)
                })
                .filter(|r| DayRange::from_validity(&r.validity).contains(day))
                .max_by_key(|r| (DayRange::from_validity(&r.validity).start, r.id));
            if let Some(winner) = winner {
                return Ok(Rating {
                    outcome: Outcome::CallClass,
                    matched: Matched::CallClass { id: winner.id },
                    source_charge_group_id: Some(winner.source_charge_group_id),
                });
            }
        }
        Ok(Rating::UNRATED)
    }
}
