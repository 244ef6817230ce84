//! `billing`: parse arguments, set up logging, run the chosen command.

use std::io::Read;
use std::process::ExitCode;

use billing_server::batch::{self, BatchError};
use billing_server::settings::ImportExport;
use billing_server::{
    Command, ServerError, bind, bootstrap, build_state, init_logging, open_database, settings,
};

fn main() -> ExitCode {
    let cli = match settings::load() {
        Ok(cli) => cli,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    init_logging(&cli.settings);
    if let Err(message) = check_settings(&cli.settings) {
        eprintln!("billing: {message}");
        return ExitCode::from(2);
    }
    let outcome = match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(&cli.settings),
        Command::Migrate => {
            open_database(&cli.settings).map(|_| println!("database is up to date"))
        }
        Command::Rate {
            tariff,
            database,
            input,
            output,
            reference,
        } => {
            let source = match tariff {
                Some(directory) if !database => TariffSource::Directory(directory),
                _ => TariffSource::Database,
            };
            rate(
                &cli.settings,
                &source,
                input.as_deref(),
                output.as_deref(),
                reference,
            )
        }
        Command::Import {
            what: ImportExport::ReferenceData { directory, user },
        } => import_reference_data(&cli.settings, &directory, &user),
        Command::Export {
            what: ImportExport::ReferenceData { directory, .. },
        } => open_database(&cli.settings).and_then(|database| {
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
        } => create_user(&cli.settings, &username, &roles, email),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("billing: {error}");
            ExitCode::FAILURE
        }
    }
}

fn batch_failed(error: BatchError) -> ServerError {
    ServerError::Batch(error.0)
}

/// `billing import reference-data DIR`: every bad row is listed (file and line) and nothing
/// is written; otherwise one transaction writes it all.
fn import_reference_data(
    settings: &billing_server::Settings,
    directory: &std::path::Path,
    user: &str,
) -> Result<(), ServerError> {
    use batch::reference_data::ImportError;
    let database = open_database(settings)?;
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
    }
}

/// Where `billing rate` reads the reference data from.
enum TariffSource {
    Directory(std::path::PathBuf),
    Database,
}

/// `billing rate`: the tariff is loaded whole (a malformed file stops here), then the usage
/// streams through; the summary goes to stderr. With `reference`, the plain prefix-map
/// reference decides instead of the engine (the engine still names the matched groups).
fn rate(
    settings: &billing_server::Settings,
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
        TariffSource::Database => {
            let database = open_database(settings)?;
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
    let (reader, total): (Box<dyn std::io::Read>, Option<u64>) =
        match input.filter(|p| p.as_os_str() != "-") {
            Some(path) => {
                let file = std::fs::File::open(path)
                    .map_err(|e| ServerError::Batch(format!("{}: {e}", path.display())))?;
                let size = file.metadata().ok().map(|m| m.len());
                (Box::new(file), size)
            }
            None => (Box::new(stdin.lock()), None),
        };
    let writer: Box<dyn std::io::Write> = match output.filter(|p| p.as_os_str() != "-") {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .map_err(|e| ServerError::Batch(format!("{}: {e}", path.display())))?,
        ),
        None => Box::new(stdout.lock()),
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

/// Settings that parse but make no sense are refused before anything starts.
fn check_settings(settings: &billing_server::Settings) -> Result<(), String> {
    if !(1..=256).contains(&settings.db_pool_size) {
        return Err("BILLING_DB_POOL_SIZE must be from 1 to 256".into());
    }
    if settings.body_limit_bytes < 1024 {
        return Err("BILLING_BODY_LIMIT_BYTES must be at least 1024".into());
    }
    Ok(())
}

fn serve(settings: &billing_server::Settings) -> Result<(), ServerError> {
    let state = build_state(settings)?;
    actix_web::rt::System::new().block_on(async {
        let (server, address) = bind(settings, state)?;
        tracing::info!(%address, "serving the billing API; SIGTERM or Ctrl-C stops gracefully");
        server.await?;
        tracing::info!("stopped");
        Ok(())
    })
}

fn create_user(
    settings: &billing_server::Settings,
    username: &str,
    roles: &[String],
    email: Option<String>,
) -> Result<(), ServerError> {
    let password = match std::env::var("BILLING_NEW_USER_PASSWORD") {
        Ok(password) => password,
        Err(_) => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text)?;
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
