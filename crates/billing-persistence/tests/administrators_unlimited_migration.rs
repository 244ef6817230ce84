//! The migration that frees administrators of contract owners (an ADMINISTRATOR cannot be
//! limited to them): an administrator's rows go, every other user's stay.

mod support;

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
const THE_MIGRATION: &str = "2026-11-26-000002";

const USERS_BEFORE: &str = "
    INSERT INTO contract_owners (id, name) VALUES (7, 'Seven');
    INSERT INTO users (id, username, password_hash, active, roles, created_date, updated_date)
    VALUES (1, 'boss', 'x', TRUE, 'ADMINISTRATOR', '2026-01-01 00:00:00', '2026-01-01 00:00:00'),
           (2, 'both', 'x', TRUE, 'READ_ONLY,ADMINISTRATOR', '2026-01-01 00:00:00', '2026-01-01 00:00:00'),
           (3, 'limited', 'x', TRUE, 'BILLING_MANAGER', '2026-01-01 00:00:00', '2026-01-01 00:00:00'),
           (4, 'lookalike', 'x', TRUE, 'READ_ONLY', '2026-01-01 00:00:00', '2026-01-01 00:00:00');
    INSERT INTO user_contract_owners (user_id, ordinal, contract_owner_id)
    VALUES (1, 0, 7), (2, 0, 7), (3, 0, 7), (4, 0, 7);
";

#[derive(QueryableByName, Debug)]
struct Link {
    #[diesel(sql_type = BigInt)]
    user_id: i64,
}

/// Migrates up to just before the migration, stores the users, runs the rest and lists who
/// is still limited.
fn migrate_across<C>(connection: &mut C, migrations: fn() -> EmbeddedMigrations) -> Vec<i64>
where
    C: Connection + MigrationHarness<C::Backend>,
    EmbeddedMigrations: diesel::migration::MigrationSource<C::Backend>,
    for<'a> diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'a, C, Link>,
{
    loop {
        let pending = connection
            .pending_migrations(migrations())
            .expect("pending");
        let Some(next) = pending.first() else {
            panic!("the migration is missing")
        };
        if next.name().to_string().starts_with(THE_MIGRATION) {
            break;
        }
        connection
            .run_next_migration(migrations())
            .expect("earlier migration");
    }
    connection.batch_execute(USERS_BEFORE).expect("users");
    connection
        .run_pending_migrations(migrations())
        .expect("the migration");
    let links: Vec<Link> =
        diesel::sql_query("SELECT user_id FROM user_contract_owners ORDER BY user_id")
            .load(connection)
            .expect("links");
    links.iter().map(|link| link.user_id).collect::<Vec<_>>()
}

#[test]
fn sqlite_frees_only_administrators() {
    let mut connection = SqliteConnection::establish(":memory:").expect("sqlite");
    assert_eq!(migrate_across(&mut connection, || SQLITE), [3, 4]);
}

#[test]
fn postgres_frees_only_administrators() {
    support::on_scratch_postgres(|url| {
        let mut connection = PgConnection::establish(url).expect("postgres");
        assert_eq!(migrate_across(&mut connection, || POSTGRES), [3, 4]);
    });
}
