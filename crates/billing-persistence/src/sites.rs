//! `sites`: the locations of customers (scoped through their customer's contract owner), with
//! the filters that reach into what a site owns and into its customer.

billing_domain::sites!(
    crate::stored_resource,
    extra_filters {
        mandate_status => child_text(sites::id, site_invoice_details.site_id.mandate_status),
        mandate_reference => child_text(sites::id, site_invoice_details.site_id.mandate_reference),
        mandate_created_date => child_day(sites::id, site_invoice_details.site_id.mandate_created_date),
        mandate_updated_date => child_day(sites::id, site_invoice_details.site_id.mandate_updated_date),
        invoice_template_id => child_id(sites::id, site_invoice_details.site_id.invoice_template_id),
        billing_cycle_id => parent_id(sites::customer_id, customers.billing_cycle_id),
        contract_owner_sub_brand_id => parent_id(sites::customer_id, customers.contract_owner_sub_brand_id),
        adhoc_bill_run_id => child_id(sites::id, adhoc_bill_run_sites.site_id.adhoc_bill_run_id),
        active_sites => active_today(sites::end_date),
    }
);

/// What the rules read of the site that receives another site's invoices: its customer,
/// whether it has invoice details, and its end date.
pub fn receiving_facts(
    connection: &mut crate::DbConnection,
    id: i64,
) -> crate::error::PersistenceResult<Option<(i64, bool, Option<chrono::NaiveDate>)>> {
    use crate::schema::{site_invoice_details as details, sites};
    use diesel::prelude::*;
    let site: Option<(i64, Option<chrono::NaiveDate>)> = sites::table
        .find(id)
        .select((sites::customer_id, sites::end_date))
        .first(connection)
        .optional()?;
    let Some((customer_id, end_date)) = site else {
        return Ok(None);
    };
    let has_details: bool = diesel::select(diesel::dsl::exists(
        details::table.filter(details::site_id.eq(id)),
    ))
    .get_result(connection)?;
    Ok(Some((customer_id, has_details, end_date)))
}

/// The sites that send their invoices to site `id` and have not ended by `today`; with
/// `ending_after`, only those that end after that day or never.
pub fn active_senders_to(
    connection: &mut crate::DbConnection,
    id: i64,
    today: chrono::NaiveDate,
    ending_after: Option<chrono::NaiveDate>,
) -> crate::error::PersistenceResult<Vec<i64>> {
    use crate::schema::sites;
    use diesel::prelude::*;
    // Still sending on `last_day` or later: active today, and past `ending_after`.
    let last_day = ending_after.map_or(today, |day| (day + chrono::Days::new(1)).max(today));
    Ok(sites::table
        .filter(sites::site_id_receiving_invoice.eq(id))
        .filter(sites::end_date.ge(last_day).or(sites::end_date.is_null()))
        .select(sites::id)
        .order(sites::id)
        .load(connection)?)
}

/// Copies a mandate's status and dates into the invoice details that name it (`provider` is
/// their payment method), moving those sites' versions so their ETags change with their
/// bodies. `mandate` is `None` when the mandate is gone.
pub fn refresh_mandate(
    connection: &mut crate::DbConnection,
    provider: &str,
    reference: &str,
    mandate: Option<(&str, chrono::NaiveDateTime, chrono::NaiveDateTime)>,
) -> crate::error::PersistenceResult<()> {
    use crate::schema::{site_invoice_details as details, sites};
    use diesel::prelude::*;
    let naming = details::table
        .filter(details::payment_method.eq(provider))
        .filter(details::mandate_reference.eq(reference));
    diesel::update(sites::table.filter(sites::id.eq_any(naming.select(details::site_id))))
        .set(sites::version.eq(sites::version + 1))
        .execute(connection)?;
    let (status, created, updated) = match mandate {
        Some((status, created, updated)) => (Some(status), Some(created), Some(updated)),
        None => (None, None, None),
    };
    diesel::update(naming)
        .set((
            details::mandate_status.eq(status),
            details::mandate_created_date.eq(created),
            details::mandate_updated_date.eq(updated),
        ))
        .execute(connection)?;
    Ok(())
}

/// Whether any site's invoice details name the mandate of `provider` with `reference`.
pub fn name_mandate(
    connection: &mut crate::DbConnection,
    provider: &str,
    reference: &str,
) -> crate::error::PersistenceResult<bool> {
    use crate::schema::site_invoice_details as details;
    use diesel::prelude::*;
    Ok(diesel::select(diesel::dsl::exists(
        details::table
            .filter(details::payment_method.eq(provider))
            .filter(details::mandate_reference.eq(reference)),
    ))
    .get_result(connection)?)
}

/// The sites whose invoice details name the mandate `(provider, reference)`.
pub fn naming_mandate(
    connection: &mut crate::DbConnection,
    provider: &str,
    reference: &str,
) -> crate::error::PersistenceResult<Vec<i64>> {
    use crate::schema::site_invoice_details as details;
    use diesel::prelude::*;
    Ok(details::table
        .filter(details::payment_method.eq(provider))
        .filter(details::mandate_reference.eq(reference))
        .select(details::site_id)
        .distinct()
        .load(connection)?)
}

/// The sites that hold a value of custom field definition `definition_id`.
pub fn using_custom_field(
    connection: &mut crate::DbConnection,
    definition_id: i64,
) -> crate::error::PersistenceResult<Vec<i64>> {
    use crate::schema::site_assigned_custom_fields as fields;
    use diesel::prelude::*;
    Ok(fields::table
        .filter(fields::custom_field_definition_id.eq(definition_id))
        .select(fields::site_id)
        .distinct()
        .load(connection)?)
}

/// The contract owner of each of `ids` that exists, through its customer (one query per
/// [`MAX_IN_LIST`](crate::MAX_IN_LIST) ids).
pub fn contract_owners_of(
    connection: &mut crate::DbConnection,
    ids: &[i64],
) -> crate::error::PersistenceResult<Vec<(i64, i64)>> {
    use crate::schema::{customers, sites};
    use diesel::prelude::*;
    crate::in_chunks(ids, |chunk| {
        Ok(sites::table
            .inner_join(customers::table)
            .filter(sites::id.eq_any(chunk))
            .select((sites::id, customers::contract_owner_id))
            .load(connection)?)
    })
}

/// The sites (in id order) whose invoice details list invoice template `template_id` among
/// their electronic summary templates. The list is held as ids joined by commas (the domain's
/// `IdList`), which no foreign key can see: a `LIKE` finds the candidates, the split decides.
/// A template is deleted seldom, so a scan of the details is acceptable here.
pub fn sending_electronic_summaries_with(
    connection: &mut crate::DbConnection,
    template_id: i64,
) -> crate::error::PersistenceResult<Vec<i64>> {
    use crate::schema::site_invoice_details as details;
    use diesel::prelude::*;
    let candidates: Vec<(i64, String)> = details::table
        .filter(details::electronic_summary_template_ids.like(format!("%{template_id}%")))
        .select((details::site_id, details::electronic_summary_template_ids))
        .order(details::site_id)
        .load(connection)?;
    Ok(candidates
        .into_iter()
        .filter(|(_, ids)| billing_domain::sites::codes::IdList::split(ids).contains(&template_id))
        .map(|(site_id, _)| site_id)
        .collect())
}
