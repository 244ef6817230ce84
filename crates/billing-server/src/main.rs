//! `billing`: parse arguments, set up logging, run the chosen command.

use std::io::Read;
use std::process::ExitCode;

use billing_server::batch::{self, BatchError};
use billing_server::settings::{Export, Import};
use billing_server::{
    Command, DatabaseSettings, Listeners, LogSettings, ServerError, Settings, bootstrap,
    build_state, init_logging, open_database, open_database_reporting, open_existing_database,
    serve_on, settings,
};

fn main() -> ExitCode {
    let cli = match settings::load() {
        Ok(cli) => cli,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let command = cli.into_command();
    init_logging(&logging_of(&command));
    if let Err(message) = check_settings(&command) {
        eprintln!("billing: {message}");
        return ExitCode::from(2);
    }
    let outcome = match command {
        Command::Serve(settings) => serve(&settings),
        Command::Migrate { database, .. } => migrate(&database),
        Command::Rate {
            tariff,
            use_database,
            input,
            output,
            reference,
            database,
            ..
        } => {
            let source = match tariff {
                Some(directory) if !use_database => TariffSource::Directory(directory),
                _ => TariffSource::Database(database),
            };
            rate(&source, input.as_deref(), output.as_deref(), reference)
        }
        Command::Import {
            what:
                Import::ReferenceData {
                    directory,
                    user,
                    database,
                    ..
                },
        } => import_reference_data(&database, &directory, &user),
        Command::Export {
            what:
                Export::ReferenceData {
                    directory,
                    database,
                    ..
                },
        } => open_existing_database(&database).and_then(|database| {
            batch::reference_data::export(&database, &directory)
                .map(|summary| eprint!("{summary}"))
                .map_err(batch_failed)
        }),
        Command::Generate {
            tariff,
            dialstrings,
            sources,
            usage,
            rows,
            seed,
        } => batch::generate::generate(&tariff, dialstrings, sources, usage.as_deref(), rows, seed)
            .map_err(batch_failed),
        Command::Openapi => {
            println!("{:#}", billing_http::openapi_document());
            Ok(())
        }
        Command::CreateUser {
            username,
            roles,
            email,
            database,
            ..
        } => create_user(&database, &username, &roles, email),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("billing: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The log settings of the command (text at `info` for those without log options).
fn logging_of(command: &Command) -> LogSettings {
    match command {
        Command::Serve(settings) => settings.logging.clone(),
        Command::Migrate { logging, .. }
        | Command::Rate { logging, .. }
        | Command::CreateUser { logging, .. }
        | Command::Import {
            what: Import::ReferenceData { logging, .. },
        }
        | Command::Export {
            what: Export::ReferenceData { logging, .. },
        } => logging.clone(),
        Command::Openapi | Command::Generate { .. } => LogSettings::default(),
    }
}

/// `billing migrate`: where the database is and which migrations ran, on stdout.
fn migrate(settings: &DatabaseSettings) -> Result<(), ServerError> {
    let (_, opened) = open_database_reporting(settings)?;
    println!("{}", opened.location);
    if opened.applied_migrations.is_empty() {
        println!("database is up to date: no migrations to run");
    } else {
        for name in &opened.applied_migrations {
            println!("applied migration {name}");
        }
        println!("database is up to date");
    }
    Ok(())
}

fn batch_failed(error: BatchError) -> ServerError {
    ServerError::Batch(error.0)
}

/// `billing import reference-data DIR`: every bad row is listed (file and line) and nothing
/// is written; otherwise one transaction writes it all.
fn import_reference_data(
    settings: &DatabaseSettings,
    directory: &std::path::Path,
    user: &str,
) -> Result<(), ServerError> {
    use batch::reference_data::ImportError;
    // Into an existing database only: one made here would have no user to record the import as.
    let database = open_existing_database(settings)?;
    match batch::reference_data::import(&database, directory, user) {
        Ok(summary) => {
            eprint!("{summary}");
            Ok(())
        }
        Err(ImportError::Rows(rows)) => {
            for row in &rows {
                eprintln!("{row}");
            }
            Err(ServerError::Batch(format!(
                "{} bad rows; nothing was imported",
                rows.len()
            )))
        }
        Err(ImportError::Failed(message)) => Err(ServerError::Batch(format!(
            "{message}; nothing was imported"
        ))),
        Err(ImportError::Storage(error)) => {
            Err(ServerError::Batch(format!("{error}; nothing was imported")))
        }
    }
}

/// Where `billing rate` reads the reference data from.
enum TariffSource {
    Directory(std::path::PathBuf),
    Database(DatabaseSettings),
}

/// `billing rate`: the tariff is loaded whole (a malformed file stops here), then the usage
/// streams through; the summary goes to stderr. With `reference`, the plain prefix-map
/// reference decides instead of the engine (the engine still names the matched groups).
fn rate(
    source: &TariffSource,
    input: Option<&std::path::Path>,
    output: Option<&std::path::Path>,
    reference: bool,
) -> Result<(), ServerError> {
    let started = std::time::Instant::now();
    let tariff = match source {
        TariffSource::Directory(directory) => {
            batch::tariff_csv::load(directory).map_err(batch_failed)?
        }
        TariffSource::Database(settings) => {
            let database = open_existing_database(settings)?;
            database
                .read(billing_persistence::rating_data::load)?
                .feed
                .tariff()
        }
    };
    let index = billing_domain::rating::RatingIndex::build(&tariff)
        .map_err(|e| ServerError::Batch(format!("tariff: {e}")))?;
    eprintln!(
        "tariff: {} dialstrings indexed in {:.2} s",
        index.dialstring_count(),
        started.elapsed().as_secs_f64()
    );
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    // Creating the output empties it: it may not be the usage file being read.
    let named = |path: Option<&std::path::Path>| {
        path.filter(|p| p.as_os_str() != "-")
            .and_then(|p| std::fs::canonicalize(p).ok())
    };
    if let (Some(read), Some(written)) = (named(input), named(output))
        && read == written
    {
        return Err(ServerError::Batch(format!(
            "{}: --output names the usage file being rated (--input), which writing would empty; write the rated CSV elsewhere",
            written.display()
        )));
    }
    let (reader, total): (Box<dyn std::io::Read>, Option<u64>) =
        match input.filter(|p| p.as_os_str() != "-") {
            Some(path) => {
                let file = batch::files::Named::open(path).map_err(batch_failed)?;
                let size = file.metadata().ok().map(|m| m.len());
                (Box::new(file), size)
            }
            None => (
                Box::new(batch::files::Named::new("standard input", stdin.lock())),
                None,
            ),
        };
    let writer: Box<dyn std::io::Write> = match output.filter(|p| p.as_os_str() != "-") {
        Some(path) => Box::new(batch::files::Named::create(path).map_err(batch_failed)?),
        None => Box::new(batch::files::Named::new("standard output", stdout.lock())),
    };
    let summary = if reference {
        let rater = billing_domain::rating::PrefixMapRater::new(&tariff);
        batch::rate::rate_stream(&rater, &index, reader, writer, total)
    } else {
        drop(tariff);
        batch::rate::rate_stream(&index, &index, reader, writer, total)
    }
    .map_err(batch_failed)?;
    eprint!("{}", summary.report());
    Ok(())
}

/// Settings that parse but make no sense together are refused before anything starts (each
/// one's own range is checked as it is read, in `settings`).
fn check_settings(command: &Command) -> Result<(), String> {
    if let Command::Serve(settings) = command
        && settings.metrics_bind == Some(settings.bind)
        && settings.bind.port() != 0
    {
        return Err("BILLING_METRICS_BIND must differ from BILLING_BIND".into());
    }
    Ok(())
}

/// Binds the addresses first (an address in use fails here, before anything is created),
/// claims a SQLite database for this one instance, then opens the database and makes what a first start makes, then serves.
fn serve(settings: &Settings) -> Result<(), ServerError> {
    let listeners = Listeners::bind(settings)?;
    let _claim = billing_server::claim_for_serving(&settings.database)?;
    let state = build_state(settings)?;
    billing_server::memory::give_back_after_bursts();
    actix_web::rt::System::new().block_on(async {
        let serving = serve_on(settings, listeners, state)?;
        match serving.metrics_address {
            Some(metrics) => tracing::info!(
                address = %serving.address,
                metrics_address = %metrics,
                "serving the billing API (/metrics only on metrics_address); SIGTERM or Ctrl-C stops gracefully"
            ),
            None => tracing::info!(
                address = %serving.address,
                "serving the billing API (and /metrics); SIGTERM or Ctrl-C stops gracefully"
            ),
        }
        serving.run().await?;
        tracing::info!("stopped");
        Ok(())
    })
}

fn create_user(
    settings: &DatabaseSettings,
    username: &str,
    roles: &[String],
    email: Option<String>,
) -> Result<(), ServerError> {
    let password = match std::env::var("BILLING_NEW_USER_PASSWORD") {
        Ok(password) => password,
        Err(_) => {
            // No password is longer than its limit: more is not read (a stream of gigabytes).
            const MOST: u64 = 64 * 1024;
            let mut text = String::new();
            std::io::stdin().take(MOST + 1).read_to_string(&mut text)?;
            if text.len() as u64 > MOST {
                return Err(ServerError::Batch(format!(
                    "the password on standard input is longer than {MOST} bytes"
                )));
            }
            text.trim_end_matches(['\r', '\n']).to_owned()
        }
    };
    let database = open_database(settings)?;
    let id = bootstrap::create_user(
        &database,
        username,
        &password,
        roles,
        email,
        bootstrap::Origin::CommandLine,
    )?;
    println!("created user {username} with id {id}");
    Ok(())
}
