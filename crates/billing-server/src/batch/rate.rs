//! `billing rate`: a usage CSV in, the same rows with their rating appended out, as a stream.
//! A malformed row is reported with its line number and rated as ERROR; the run goes on.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Read, Write};
use std::time::{Duration, Instant};

use billing_domain::dates::parse_date;
use billing_domain::rating::{Matched, Outcome, Rater, Rating, RatingIndex, RatingRequest};
use chrono::NaiveDate;

use super::BatchError;
use super::csv_out::RowWriter;

/// Columns a usage file must have (in any order; other columns pass through).
pub use billing_domain::rating::tariff_files::USAGE_COLUMNS as INPUT_COLUMNS;

/// Columns appended to every row.
pub const OUTPUT_COLUMNS: [&str; 12] = [
    "outcome",
    "matched_record_id",
    "dialstring",
    "source_charge_group_id",
    "source_charge_group_code",
    "source_charge_group_name",
    "charge_group_id",
    "charge_group_name",
    "charge_group_category_id",
    "charge_group_category_name",
    "charging_unit_type",
    "error",
];

/// How a run went.
#[derive(Debug, Default)]
pub struct Summary {
    pub rows: u64,
    pub outcomes: BTreeMap<&'static str, u64>,
    pub errors: u64,
    /// The first errors, with their line numbers.
    pub first_errors: Vec<(u64, String)>,
    pub elapsed: Duration,
}

const ERRORS_LISTED: usize = 20;

/// Rows read, rated and written together (so [`RatingIndex::rate_many`] can overlap lookups).
const CHUNK_ROWS: usize = 1024;

impl Summary {
    pub fn report(&self) -> String {
        let mut text = format!(
            "rated {} rows in {:.2} s ({:.0} rows/s)\n",
            self.rows,
            self.elapsed.as_secs_f64(),
            self.rows as f64 / self.elapsed.as_secs_f64().max(1e-9)
        );
        for outcome in Outcome::ALL {
            text.push_str(&format!(
                "  {:<10} {}\n",
                outcome.code(),
                self.outcomes.get(outcome.code()).copied().unwrap_or(0)
            ));
        }
        text.push_str(&format!("  {:<10} {}\n", "ERROR", self.errors));
        for (line, message) in &self.first_errors {
            text.push_str(&format!("  line {line}: {message}\n"));
        }
        if self.errors > self.first_errors.len() as u64 {
            text.push_str(&format!(
                "  … and {} more errors\n",
                self.errors - self.first_errors.len() as u64
            ));
        }
        text
    }
}

/// Parses dates, remembering the last one (usage files are mostly in date order).
#[derive(Default)]
struct DateCache {
    text: Vec<u8>,
    date: Option<NaiveDate>,
}

impl DateCache {
    fn parse(&mut self, bytes: &[u8]) -> Option<NaiveDate> {
        if bytes != self.text.as_slice() {
            self.text.clear();
            self.text.extend_from_slice(bytes);
            self.date = std::str::from_utf8(bytes).ok().and_then(parse_date);
        }
        self.date
    }
}

/// Progress on stderr, only when it is a terminal.
struct Progress {
    enabled: bool,
    total_bytes: Option<u64>,
    started: Instant,
    last: Instant,
}

impl Progress {
    fn tick(&mut self, rows: u64, bytes: u64) {
        if !self.enabled
            || !rows.is_multiple_of(CHUNK_ROWS as u64 * 64)
            || self.last.elapsed() < Duration::from_millis(250)
        {
            return;
        }
        self.last = Instant::now();
        let rate = rows as f64 / self.started.elapsed().as_secs_f64().max(1e-9);
        let share = self
            .total_bytes
            .map(|total| format!(" {:5.1}%", 100.0 * bytes as f64 / total.max(1) as f64))
            .unwrap_or_default();
        eprint!("\r{rows:>12} rows{share} {rate:>10.0} rows/s");
    }

    fn finish(&self) {
        if self.enabled {
            eprintln!();
        }
    }
}

fn column_index(header: &csv::ByteRecord, name: &str) -> Result<usize, BatchError> {
    header
        .iter()
        .position(|field| field == name.as_bytes())
        .ok_or_else(|| {
            BatchError(format!(
                "usage line 1: the header has no column {name} (needed: {})",
                INPUT_COLUMNS.join(", ")
            ))
        })
}

/// Rates every row of `input` into `output` with `rater` (the engine, or a reference to check
/// it against); `index` names the matched groups. `total_bytes` (when known) drives the
/// progress.
pub fn rate_stream(
    rater: &impl Rater,
    index: &RatingIndex,
    input: impl Read,
    output: impl Write,
    total_bytes: Option<u64>,
) -> Result<Summary, BatchError> {
    let started = Instant::now();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .buffer_capacity(1 << 20)
        .from_reader(input);
    let mut writer = RowWriter::new(output);
    let header = reader
        .byte_headers()
        .map_err(|e| BatchError(format!("usage line 1: {e}")))?
        .clone();
    let [source_at, date_at, number_at, class_at, service_at] =
        INPUT_COLUMNS.map(|name| column_index(&header, name));
    let (source_at, date_at, number_at, class_at, service_at) =
        (source_at?, date_at?, number_at?, class_at?, service_at?);
    let width = header.len();
    let mut out_header = header.clone();
    for column in OUTPUT_COLUMNS {
        out_header.push_field(column.as_bytes());
    }
    for field in out_header.iter() {
        writer.field(field);
    }
    writer.end_row()?;

    let mut summary = Summary::default();
    let mut counts = [0u64; 4];
    let mut dates = DateCache::default();
    let mut progress = Progress {
        enabled: std::io::stderr().is_terminal(),
        total_bytes,
        started,
        last: started,
    };
    let mut numbers = itoa::Buffer::new();
    let mut suffixes = SuffixCache::default();
    let at = [source_at, date_at, number_at, class_at, service_at];
    let mut chunk: Vec<csv::ByteRecord> = (0..CHUNK_ROWS).map(|_| csv::ByteRecord::new()).collect();
    let mut unreadable: Vec<Option<String>> = vec![None; CHUNK_ROWS];
    let mut results = Vec::with_capacity(CHUNK_ROWS);
    let mut line = 1u64;
    let mut finished = false;
    while !finished {
        let mut filled = 0;
        while filled < CHUNK_ROWS {
            match reader.read_byte_record(&mut chunk[filled]) {
                Ok(false) => {
                    finished = true;
                    break;
                }
                Ok(true) => unreadable[filled] = None,
                Err(error) => {
                    chunk[filled].clear();
                    unreadable[filled] = Some(error.to_string());
                }
            }
            filled += 1;
        }
        // Parse the chunk, rate the well-formed rows together, then write every row in order.
        let parsed: Vec<Result<RatingRequest<'_>, String>> = chunk[..filled]
            .iter()
            .zip(&unreadable)
            .map(|(record, problem)| match problem {
                Some(problem) => Err(problem.clone()),
                None if record.len() != width => {
                    Err(format!("expected {width} fields, found {}", record.len()))
                }
                None => request_of(record, at, &mut dates),
            })
            .collect();
        let requests: Vec<RatingRequest<'_>> = parsed
            .iter()
            .filter_map(|p| p.as_ref().ok().copied())
            .collect();
        results.clear();
        rater.rate_many(&requests, &mut results);
        let mut rated = results.iter();
        for (record, outcome) in chunk[..filled].iter().zip(&parsed) {
            line += 1;
            summary.rows += 1;
            let outcome = match outcome {
                Ok(_) => rated
                    .next()
                    .cloned()
                    .unwrap_or(Ok(Rating::UNRATED))
                    .map_err(|error| format!("dialled_number: {error}")),
                Err(message) => Err(message.clone()),
            };
            for field in record.iter() {
                writer.field(field);
            }
            for _ in record.len()..width {
                writer.field(b"");
            }
            match outcome {
                Ok(rating) => {
                    counts[rating.outcome as usize] += 1;
                    write_rating(
                        &mut writer,
                        &mut suffixes,
                        index,
                        &rating,
                        record,
                        number_at,
                        &mut numbers,
                    );
                }
                Err(message) => {
                    writer.field(b"ERROR");
                    for _ in 1..OUTPUT_COLUMNS.len() - 1 {
                        writer.field(b"");
                    }
                    writer.field(message.as_bytes());
                    record_error(&mut summary, line, message);
                }
            }
            writer.end_row()?;
        }
        progress.tick(summary.rows, reader.position().byte());
    }
    writer.flush()?;
    progress.finish();
    for outcome in Outcome::ALL {
        summary
            .outcomes
            .insert(outcome.code(), counts[outcome as usize]);
    }
    summary.elapsed = started.elapsed();
    Ok(summary)
}

fn record_error(summary: &mut Summary, line: u64, message: String) {
    summary.errors += 1;
    if summary.first_errors.len() < ERRORS_LISTED {
        summary.first_errors.push((line, message));
    }
}

/// The rating request of a well-formed row, borrowing its fields.
fn request_of<'r>(
    record: &'r csv::ByteRecord,
    at: [usize; 5],
    dates: &mut DateCache,
) -> Result<RatingRequest<'r>, String> {
    let text = |i: usize| {
        std::str::from_utf8(record.get(i).unwrap_or_default())
            .map_err(|_| "a field is not UTF-8".to_owned())
    };
    let source = text(at[0])?
        .parse::<i64>()
        .ok()
        .filter(|id| *id >= 1)
        .ok_or_else(|| "reference_data_source_id: expected an integer >= 1".to_owned())?;
    let date = dates
        .parse(record.get(at[1]).unwrap_or_default())
        .ok_or_else(|| "date: expected yyyy-MM-dd".to_owned())?;
    Ok(RatingRequest {
        reference_data_source_id: source,
        date,
        dialled_number: Some(text(at[2])?),
        call_class: Some(text(at[3])?),
        service_id: Some(text(at[4])?),
    })
}

/// The trailing output columns of each source charge group (its code, name, charge group,
/// category…), rendered once: most rows repeat a few groups.
#[derive(Default)]
struct SuffixCache {
    rendered: std::collections::HashMap<Option<i64>, Vec<u8>>,
}

impl SuffixCache {
    fn get(&mut self, index: &RatingIndex, group_id: Option<i64>) -> &[u8] {
        self.rendered.entry(group_id).or_insert_with(|| {
            let group = group_id.and_then(|id| index.source_charge_group(id));
            let charge_group = group.and_then(|g| index.charge_group(g.charge_group_id));
            let category = charge_group.and_then(|g| index.category(g.charge_group_category_id));
            let id = |value: Option<i64>| value.map(|v| v.to_string()).unwrap_or_default();
            let fields = [
                id(group_id),
                group.map(|g| g.code.clone()).unwrap_or_default(),
                group.map(|g| g.name.clone()).unwrap_or_default(),
                id(charge_group.map(|g| g.id)),
                charge_group.map(|g| g.name.clone()).unwrap_or_default(),
                id(category.map(|c| c.id)),
                category.map(|c| c.name.clone()).unwrap_or_default(),
                category
                    .map(|c| c.charging_unit_type.code().to_owned())
                    .unwrap_or_default(),
                String::new(),
            ];
            let mut line = Vec::new();
            for field in fields {
                line.push(b',');
                super::csv_out::push_field(&mut line, field.as_bytes());
            }
            line
        })
    }
}

fn write_rating<W: Write>(
    writer: &mut RowWriter<W>,
    suffixes: &mut SuffixCache,
    index: &RatingIndex,
    rating: &Rating,
    record: &csv::ByteRecord,
    number_at: usize,
    numbers: &mut itoa::Buffer,
) {
    writer.field(rating.outcome.code().as_bytes());
    let (matched_id, dialstring_length) = match rating.matched {
        Matched::None => (None, 0),
        Matched::IgnoredServiceId { id }
        | Matched::IgnoredCallClass { id }
        | Matched::CallClass { id } => (Some(id), 0),
        Matched::Dialstring { id, length } => (Some(id), usize::from(length)),
    };
    match matched_id {
        Some(id) => writer.field(numbers.format(id).as_bytes()),
        None => writer.field(b""),
    }
    // The matched prefix: the first digits of the number (after + and spaces).
    let mut digits = [0u8; 15];
    let mut length = 0;
    for &byte in record.get(number_at).unwrap_or_default() {
        if length == dialstring_length {
            break;
        }
        if byte.is_ascii_digit() {
            digits[length] = byte;
            length += 1;
        }
    }
    writer.field(&digits[..length]);
    writer.rendered(suffixes.get(index, rating.source_charge_group_id));
}

#[cfg(test)]
mod tests {
    use billing_domain::rating::synthetic;

    use super::*;

    #[test]
    fn rows_are_rated_and_bad_rows_reported_without_stopping() {
        let tariff = synthetic::tariff(50, 1, 3);
        let index = RatingIndex::build(&tariff).expect("builds");
        let dialstring = &tariff.dialstrings[0].dialstring;
        let input = format!(
            "record_id,reference_data_source_id,date,dialled_number,call_class,service_id\n\
             a,1,2026-05-01,+{dialstring}123,,\n\
             b,1,2026-05-01,,FREEPHONE,\n\
             c,1,2026-05-01,99999999,,\n\
             d,1,2026-05-01,123,,TEST-LINE\n\
             e,1,2026-13-01,123,,\n\
             f,x,2026-05-01,123,,\n\
             g,1,2026-05-01,12-3,,\n\
             h,1,2026-05-01\n\
             i,1,2026-05-01,\"0800 123\",EMERGENCY,\n"
        );
        let mut output = Vec::new();
        let summary =
            rate_stream(&index, &index, input.as_bytes(), &mut output, None).expect("runs");
        assert_eq!(summary.rows, 9);
        insta::assert_snapshot!(summary.report().lines().skip(1).collect::<Vec<_>>().join("\n"), @r"
          IGNORED    2
          DIALSTRING 1
          CALL_CLASS 1
          UNRATED    1
          ERROR      4
          line 6: date: expected yyyy-MM-dd
          line 7: reference_data_source_id: expected an integer >= 1
          line 8: dialled_number: the dialled number contains '-'; only digits, spaces and a leading + are allowed
          line 9: expected 6 fields, found 3
        ");
        let text = String::from_utf8(output).expect("utf-8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 10);
        assert!(lines[0].ends_with(",outcome,matched_record_id,dialstring,source_charge_group_id,source_charge_group_code,source_charge_group_name,charge_group_id,charge_group_name,charge_group_category_id,charge_group_category_name,charging_unit_type,error"));
        assert!(
            lines[1].contains(&format!(
                ",DIALSTRING,{},{dialstring},",
                tariff.dialstrings[0].id
            )),
            "{}",
            lines[1]
        );
        assert!(lines[2].contains(",CALL_CLASS,"));
        assert!(lines[4].contains(",IGNORED,1,"));
        assert!(lines[8].starts_with("h,1,2026-05-01,,,,ERROR,"));
    }

    #[test]
    fn a_usage_file_without_the_needed_columns_stops() {
        let index = RatingIndex::new();
        let error = rate_stream(
            &index,
            &index,
            "number,date\n1,2026-01-01\n".as_bytes(),
            Vec::new(),
            None,
        )
        .unwrap_err();
        insta::assert_snapshot!(error, @"usage line 1: the header has no column reference_data_source_id (needed: reference_data_source_id, date, dialled_number, call_class, service_id)");
    }
}
