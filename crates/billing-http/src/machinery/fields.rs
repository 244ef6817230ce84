//! The members of a resource as the interface describes them: each [`Field`] with its JSON
//! type ([`FieldType`]), its [`Access`] and what the OpenAPI document and the member checks
//! read of it.

/// The JSON type of a field, with its documented rules.
#[derive(Debug, Clone, Copy)]
pub enum FieldType {
    /// int64 >= 1.
    Id,
    Integer {
        minimum: i64,
        maximum: i64,
    },
    /// Free text of the service's character set.
    Text {
        min: u32,
        max: u32,
    },
    /// Letters a-z and A-Z only.
    Letters {
        min: u32,
        max: u32,
    },
    /// Decimal digits 0-9 only.
    Digits {
        min: u32,
        max: u32,
    },
    /// Text with its own pattern, and a realistic value of it (the documentation's example).
    Pattern {
        pattern: &'static str,
        min: u32,
        max: u32,
        example: &'static str,
    },
    /// An exact decimal with at most `scale` places, in `minimum..=maximum`.
    Decimal {
        scale: u32,
        minimum: i64,
        maximum: i64,
        /// The minimum itself is refused (a rate must be greater than 0).
        exclusive_minimum: bool,
    },
    Date,
    DateTime,
    Boolean,
    Enum(&'static [&'static str]),
    /// One of a named code set: documented once, as a component schema of that name.
    Codes(&'static str, &'static [&'static str]),
    /// An e-mail address of at most `max` characters.
    Email {
        max: u32,
    },
    Object(&'static [Field]),
    /// An array of plain objects (values without ids of their own, such as template
    /// components), checked as a whole by their kind.
    ObjectList(&'static [Field]),
    Array(&'static FieldType),
    /// Any JSON object (a record's state in the audit trail).
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    ReadWrite,
    WriteOnly,
}

/// One top-level (or nested) field of a resource's JSON form.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    pub field_type: FieldType,
    pub access: Access,
    /// Required in a create or replace body.
    pub required: bool,
    /// May be `null` (or left out) in a body and is `null` in a response when unset.
    pub nullable: bool,
    /// An array that must hold at least one element (documented as `minItems: 1`).
    pub non_empty: bool,
    /// The most elements an array may hold (documented as `maxItems`).
    pub max_items: Option<usize>,
    /// An owned object or array of objects (a child table): its members are checked like the
    /// record's own at every depth, and its elements' ids are theirs, read-only.
    pub owned: bool,
    /// The value a body that leaves the field out gets, as JSON text (`false`, `"EMAIL"`).
    pub default: Option<&'static str>,
    /// A record of another resource shown whole (`machinery::shown`): the body's object gives
    /// only its key member, stored in the input's column.
    pub shows: Option<Shows>,
    /// Only in the answer to the create (an API key's secret): never in a read or a list, so
    /// `fields` cannot ask for it.
    pub shown_once: bool,
    /// A read-only member a body may carry back as a read showed it (`[echoed]`): accepted
    /// when its type fits and ignored; a patch may still not change it.
    pub echoed: bool,
    pub description: &'static str,
}

/// Where a shown record's key goes: the body's `currency.id` is the input's `currencyId`.
#[derive(Debug, Clone, Copy)]
pub struct Shows {
    /// The input member (the stored column's JSON name): `currencyId`.
    pub column: &'static str,
    /// The shown object's member read from a body: `id`, or `code`.
    pub key: &'static str,
}

impl Field {
    const fn new(
        name: &'static str,
        field_type: FieldType,
        access: Access,
        required: bool,
        nullable: bool,
        description: &'static str,
    ) -> Self {
        Self {
            name,
            field_type,
            access,
            required,
            nullable,
            non_empty: false,
            max_items: None,
            owned: false,
            default: None,
            shows: None,
            shown_once: false,
            echoed: false,
            description,
        }
    }

    pub const fn read_only(
        name: &'static str,
        field_type: FieldType,
        description: &'static str,
    ) -> Self {
        Self::new(
            name,
            field_type,
            Access::ReadOnly,
            false,
            false,
            description,
        )
    }

    pub const fn required(
        name: &'static str,
        field_type: FieldType,
        description: &'static str,
    ) -> Self {
        Self::new(
            name,
            field_type,
            Access::ReadWrite,
            true,
            false,
            description,
        )
    }

    pub const fn optional(
        name: &'static str,
        field_type: FieldType,
        description: &'static str,
    ) -> Self {
        Self::new(
            name,
            field_type,
            Access::ReadWrite,
            false,
            true,
            description,
        )
    }

    pub const fn write_only(
        name: &'static str,
        field_type: FieldType,
        description: &'static str,
    ) -> Self {
        Self::new(
            name,
            field_type,
            Access::WriteOnly,
            false,
            false,
            description,
        )
    }

    /// A member the server fills in (from another record), read-only and null when there is
    /// nothing to show.
    pub const fn derived(
        name: &'static str,
        field_type: FieldType,
        description: &'static str,
    ) -> Self {
        Self::read_only(name, field_type, description).nullable()
    }

    /// A stamp the server sets when the record is created (read-only).
    pub const fn created(
        name: &'static str,
        field_type: FieldType,
        description: &'static str,
    ) -> Self {
        Self::read_only(name, field_type, description)
    }

    /// A stamp the server sets on every write (read-only).
    pub const fn updated(
        name: &'static str,
        field_type: FieldType,
        description: &'static str,
    ) -> Self {
        Self::read_only(name, field_type, description)
    }

    pub const fn nullable(mut self) -> Self {
        self.nullable = true;
        self
    }

    /// Only in the answer to the create (see [`Field::shown_once`](Field#structfield.shown_once)).
    pub const fn shown_once(mut self) -> Self {
        self.shown_once = true;
        self
    }

    /// Whether a read or a list shows the member (and `fields` may name it).
    pub fn readable(&self) -> bool {
        self.access != Access::WriteOnly && !self.shown_once
    }

    /// An array the server refuses when it holds more than `most` elements.
    pub const fn at_most(mut self, most: usize) -> Self {
        self.max_items = Some(most);
        self
    }

    /// An array the server refuses when empty.
    pub const fn non_empty(mut self) -> Self {
        self.non_empty = true;
        self
    }

    /// Owned children: checked member by member at every depth (see [`Field::owned`]).
    /// A record of another resource shown whole; `column` holds its `key` in the input.
    pub const fn shows(mut self, column: &'static str, key: &'static str) -> Self {
        self.shows = Some(Shows { column, key });
        self
    }

    /// A member the server keeps (`lastLoginDate`, written by sign-in): read-only, null when
    /// unset.
    pub const fn kept(
        name: &'static str,
        field_type: FieldType,
        description: &'static str,
    ) -> Self {
        Self::read_only(name, field_type, description).nullable()
    }

    /// [`Field::non_empty`] when `flag` (a kind that is a list of at least one element).
    pub const fn at_most_if(self, most: Option<usize>) -> Self {
        match most {
            Some(most) => self.at_most(most),
            None => self,
        }
    }

    /// [`Field::echoed`](Field#structfield.echoed) when `flag`.
    pub const fn echoed_if(mut self, flag: bool) -> Self {
        self.echoed = flag;
        self
    }

    pub const fn non_empty_if(self, flag: bool) -> Self {
        if flag { self.non_empty() } else { self }
    }

    pub const fn owned(mut self) -> Self {
        self.owned = true;
        self
    }

    /// The value the server stores when a body leaves the field out (JSON text).
    pub const fn with_default(mut self, json: &'static str) -> Self {
        self.default = Some(json);
        self
    }

    /// May be left out of a body (a default applies) but is never `null`.
    pub const fn not_null(mut self) -> Self {
        self.nullable = false;
        self
    }
}

/// The bytes of JSON a record of `fields` takes at most, from their documented bounds: every
/// member present at its longest, text at 4 bytes a character (UTF-8, or an escape), lists
/// at their `maxItems`. What a page may hold is counted from it (`list_budget`).
pub fn max_json_bytes(fields: &[Field]) -> usize {
    let members: usize = fields
        .iter()
        .filter(|field| field.access != Access::WriteOnly)
        .map(|field| field.name.len() + 4 + max_member_bytes(field))
        .sum();
    members + 2
}

/// The most bytes of JSON one member's value takes.
fn max_member_bytes(field: &Field) -> usize {
    let items = field.max_items.unwrap_or(LIST_ITEMS_UNDOCUMENTED);
    match field.field_type {
        FieldType::Array(element) => items * (value_bytes(element) + 1) + 2,
        FieldType::ObjectList(members) => items * (max_json_bytes(members) + 1) + 2,
        other => value_bytes(&other),
    }
}

/// The bytes of JSON a record of `fields` made from a body takes beyond what the body's own
/// text gives it: every member's name, a number, date, code or default at its longest, and
/// what the server writes itself (read-only members, records shown whole) at its longest;
/// text and lists count only their quotes and brackets, their content being the body's. A
/// created record's answer is at most its body's text plus this for it and for each object
/// of its body (`handlers::write_holds`; a test checks it on every create the suite makes).
pub fn skeleton_json_bytes(fields: &[Field]) -> usize {
    let members: usize = fields
        .iter()
        .filter(|field| field.access != Access::WriteOnly)
        .map(|field| {
            let value = if field.access == Access::ReadOnly || field.shows.is_some() {
                max_member_bytes(field)
            } else {
                match field.field_type {
                    FieldType::Text { .. }
                    | FieldType::Letters { .. }
                    | FieldType::Digits { .. }
                    | FieldType::Pattern { .. }
                    | FieldType::Email { .. }
                    | FieldType::Array(_)
                    | FieldType::ObjectList(_) => 2,
                    FieldType::Object(members) => skeleton_json_bytes(members),
                    other => value_bytes(&other),
                }
            };
            field.name.len() + 4 + value.max(field.default.map_or(4, str::len))
        })
        .sum();
    members + 2
}

/// A list without a documented `maxItems` is counted as this many elements (the service's
/// bound on owned lists).
const LIST_ITEMS_UNDOCUMENTED: usize = 100;

/// An audit event's `before` or `after`: a record's JSON form, counted as the largest one
/// (a site's is 829 KB at its worst: `list_budget`'s snapshot); a test holds it above all.
pub const RECORD_STATE_BYTES: usize = 1024 * 1024;

fn value_bytes(field_type: &FieldType) -> usize {
    match *field_type {
        FieldType::Text { max, .. }
        | FieldType::Letters { max, .. }
        | FieldType::Digits { max, .. }
        | FieldType::Pattern { max, .. }
        | FieldType::Email { max } => max as usize * 4 + 2,
        FieldType::Enum(values) | FieldType::Codes(_, values) => {
            values.iter().map(|value| value.len()).max().unwrap_or(0) + 2
        }
        FieldType::Object(members) => max_json_bytes(members),
        FieldType::ObjectList(members) => {
            LIST_ITEMS_UNDOCUMENTED * (max_json_bytes(members) + 1) + 2
        }
        FieldType::Array(element) => LIST_ITEMS_UNDOCUMENTED * (value_bytes(element) + 1) + 2,
        FieldType::Json => RECORD_STATE_BYTES,
        // Numbers, dates, times and booleans.
        FieldType::Id
        | FieldType::Integer { .. }
        | FieldType::Decimal { .. }
        | FieldType::Date
        | FieldType::DateTime
        | FieldType::Boolean => 40,
    }
}
