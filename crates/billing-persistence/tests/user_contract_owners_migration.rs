//! The migration that moves users' contract owners from comma-separated text into
//! `user_contract_owners` keeps every restriction: each id becomes a row, and an id that names
//! no contract owner gets a placeholder owner (a restricted user never becomes unrestricted).

mod support;

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
const THE_MIGRATION: &str = "2026-11-23-000003";

const USERS_BEFORE: &str = "
    INSERT INTO contract_owners (id, name) VALUES (7, 'Seven');
    INSERT INTO users (id, username, password_hash, active, roles, contract_owner_ids, created_date, updated_date)
    VALUES (1, 'everyone', 'x', TRUE, 'READ_ONLY', '', '2026-01-01 00:00:00', '2026-01-01 00:00:00'),
           (2, 'restricted', 'x', TRUE, 'READ_ONLY', '7,12', '2026-01-01 00:00:00', '2026-01-01 00:00:00'),
           (3, 'dangling', 'x', TRUE, 'READ_ONLY', '12', '2026-01-01 00:00:00', '2026-01-01 00:00:00');
";

#[derive(QueryableByName, Debug)]
struct Link {
    #[diesel(sql_type = BigInt)]
    user_id: i64,
    #[diesel(sql_type = BigInt)]
    contract_owner_id: i64,
}

#[derive(QueryableByName, Debug)]
struct Owner {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Text)]
    name: String,
}

/// Migrates up to just before the migration, stores users the old way, runs the rest and
/// describes what came out (links, then contract owners).
fn migrate_across<C>(connection: &mut C, migrations: fn() -> EmbeddedMigrations) -> String
where
    C: Connection + MigrationHarness<C::Backend>,
    EmbeddedMigrations: diesel::migration::MigrationSource<C::Backend>,
    for<'a> diesel::query_builder::SqlQuery:
        diesel::query_dsl::LoadQuery<'a, C, Link> + diesel::query_dsl::LoadQuery<'a, C, Owner>,
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
    connection
        .batch_execute(USERS_BEFORE)
        .expect("users stored as text");
    connection
        .run_pending_migrations(migrations())
        .expect("the migration");
    let links: Vec<Link> = diesel::sql_query(
        "SELECT user_id, contract_owner_id FROM user_contract_owners ORDER BY user_id, contract_owner_id",
    )
    .load(connection)
    .expect("links");
    let owners: Vec<Owner> = diesel::sql_query("SELECT id, name FROM contract_owners ORDER BY id")
        .load(connection)
        .expect("owners");
    let mut lines: Vec<String> = links
        .iter()
        .map(|link| {
            format!(
                "user {} -> contract owner {}",
                link.user_id, link.contract_owner_id
            )
        })
        .collect();
    lines.extend(
        owners
            .iter()
            .map(|owner| format!("{}: {}", owner.id, owner.name)),
    );
    // A contract owner created afterwards gets a fresh id, past the placeholders.
    connection
        .batch_execute("INSERT INTO contract_owners (name) VALUES ('Next')")
        .expect("next owner");
    let next: Vec<Owner> =
        diesel::sql_query("SELECT id, name FROM contract_owners WHERE name = 'Next'")
            .load(connection)
            .expect("next");
    lines.push(format!("next id: {}", next[0].id));
    lines.join("\n")
}

const EXPECTED: &str = "user 2 -> contract owner 7
user 2 -> contract owner 12
user 3 -> contract owner 12
7: Seven
12: Contract owner 12 (recreated by a migration: users were restricted to it)
next id: 13";

#[test]
fn sqlite_keeps_every_restriction() {
    let mut connection = SqliteConnection::establish(":memory:").expect("sqlite");
    let outcome = migrate_across(&mut connection, || SQLITE);
    assert_eq!(outcome, EXPECTED);
}

#[test]
fn postgres_keeps_every_restriction() {
    support::on_scratch_postgres(|url| {
        let mut connection = PgConnection::establish(url).expect("postgres");
        assert_eq!(migrate_across(&mut connection, || POSTGRES), EXPECTED);
    });
}
