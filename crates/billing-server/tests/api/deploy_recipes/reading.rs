//! Reading the deployment recipes: the variables and routes each one sets, as the tests compare
//! them with what `billing` documents and serves.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use yaml_rust2::{Yaml, YamlLoader};

pub(super) fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub(super) fn read(relative: &str) -> String {
    std::fs::read_to_string(repository().join(relative))
        .unwrap_or_else(|e| panic!("cannot read {relative}: {e}"))
}

pub(super) fn billing_stdout(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_billing"))
        .args(args)
        .env_remove("BILLING_CONFIG")
        .output()
        .expect("run billing");
    assert!(
        output.status.success(),
        "billing {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// The variables `billing --help` names, as `[env: NAME=value]` or `[env: NAME]`.
pub(super) fn known_variables() -> BTreeSet<String> {
    let help = billing_stdout(&["--help"]);
    let known: BTreeSet<String> = help
        .split("[env: ")
        .skip(1)
        .map(|rest| {
            rest.split(['=', ']'])
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned()
        })
        .collect();
    assert!(
        known.contains("DATABASE_URL") && known.contains("BILLING_JWT_SECRET"),
        "the settings were not found in billing --help: {known:?}"
    );
    known
}

/// One variable a recipe sets, and where.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Setting {
    pub(super) recipe: String,
    pub(super) name: String,
}

pub(super) fn settings(recipe: &str, names: impl IntoIterator<Item = String>) -> Vec<Setting> {
    names
        .into_iter()
        .map(|name| Setting {
            recipe: recipe.to_owned(),
            name,
        })
        .collect()
}

/// The settings among `set` that `known` does not list, as `recipe: NAME`.
pub(super) fn unknown(known: &BTreeSet<String>, set: &[Setting]) -> Vec<String> {
    let mut unknown: Vec<String> = set
        .iter()
        .filter(|setting| !known.contains(&setting.name))
        .map(|setting| format!("{}: {}", setting.recipe, setting.name))
        .collect();
    unknown.sort();
    unknown.dedup();
    unknown
}

// ---- Dockerfile ----------------------------------------------------------------------------

/// The Dockerfile's instructions, continuation lines joined, comments dropped.
pub(super) fn dockerfile_instructions(text: &str) -> Vec<String> {
    let mut instructions = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || (trimmed.is_empty() && current.is_empty()) {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(start) => {
                current.push_str(start);
                current.push(' ');
            }
            None => {
                current.push_str(trimmed);
                instructions.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.trim().is_empty() {
        instructions.push(current);
    }
    instructions
}

/// Words split on whitespace outside double quotes.
pub(super) fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The names the final stage's `ENV` instructions set (`ENV A=1 B=2`, or `ENV A 1`): the
/// environment the service starts with. Earlier stages only build.
pub(super) fn dockerfile_variables(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for instruction in dockerfile_instructions(text) {
        let (keyword, rest) = instruction
            .split_once(char::is_whitespace)
            .unwrap_or((instruction.as_str(), ""));
        if keyword.eq_ignore_ascii_case("FROM") {
            names.clear();
        } else if keyword.eq_ignore_ascii_case("ENV") {
            let words = shell_words(rest);
            match words.first() {
                Some(first) if first.contains('=') => names.extend(
                    words
                        .iter()
                        .filter_map(|word| word.split_once('=').map(|(name, _)| name.to_owned())),
                ),
                Some(first) => names.push(first.clone()),
                None => {}
            }
        }
    }
    names
}

/// The path the final stage's `HEALTHCHECK` requests, if it names an http URL.
pub(super) fn dockerfile_health_path(text: &str) -> Option<String> {
    dockerfile_instructions(text)
        .into_iter()
        .filter(|instruction| instruction.to_ascii_uppercase().starts_with("HEALTHCHECK"))
        .find_map(|instruction| {
            let url = instruction.split("http://").nth(1)?;
            let path = &url[url.find('/')?..];
            Some(path.split(['"', ' ', ',']).next()?.to_owned())
        })
}

// ---- YAML: compose and Kubernetes ----------------------------------------------------------

pub(super) fn yaml_documents(relative: &str, text: &str) -> Vec<Yaml> {
    YamlLoader::load_from_str(text).unwrap_or_else(|e| panic!("{relative}: not YAML: {e}"))
}

pub(super) fn key(name: &str) -> Yaml {
    Yaml::String(name.to_owned())
}

/// A mapping with YAML merge keys (`<<: *anchor`) applied, the mapping's own keys first.
pub(super) fn merged(mapping: &Yaml) -> BTreeMap<String, Yaml> {
    let mut result = BTreeMap::new();
    let Some(hash) = mapping.as_hash() else {
        return result;
    };
    for (name, value) in hash {
        if let Some(name) = name.as_str()
            && name != "<<"
        {
            result.insert(name.to_owned(), value.clone());
        }
    }
    let merges = match hash.get(&key("<<")) {
        Some(Yaml::Array(list)) => list.clone(),
        Some(other) => vec![other.clone()],
        None => Vec::new(),
    };
    for merge in merges {
        for (name, value) in merged(&merge) {
            result.entry(name).or_insert(value);
        }
    }
    result
}

pub(super) fn text_of(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(text) | Yaml::Real(text) => Some(text.clone()),
        Yaml::Integer(number) => Some(number.to_string()),
        Yaml::Boolean(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// A compose service of the billing image: one built from deploy/Dockerfile or one whose image
/// is named billing.
pub(super) fn is_billing_service(service: &BTreeMap<String, Yaml>) -> bool {
    let built_here = service
        .get("build")
        .is_some_and(|build| build["dockerfile"].as_str() == Some("deploy/Dockerfile"));
    let named = service
        .get("image")
        .and_then(Yaml::as_str)
        .is_some_and(|image| image.contains("billing"));
    built_here || named
}

/// A compose service's `environment`, as a map (list or mapping form) of name to raw value.
pub(super) fn compose_environment(service: &BTreeMap<String, Yaml>) -> BTreeMap<String, String> {
    match service.get("environment") {
        Some(Yaml::Hash(hash)) => hash
            .iter()
            .filter_map(|(name, value)| {
                Some((
                    name.as_str()?.to_owned(),
                    text_of(value).unwrap_or_default(),
                ))
            })
            .collect(),
        Some(Yaml::Array(list)) => list
            .iter()
            .filter_map(Yaml::as_str)
            .map(|entry| {
                let (name, value) = entry.split_once('=').unwrap_or((entry, ""));
                (name.to_owned(), value.to_owned())
            })
            .collect(),
        _ => BTreeMap::new(),
    }
}

/// A billing service of a compose file: its definition (merge keys applied) and environment.
pub(super) struct ComposeService {
    pub(super) definition: BTreeMap<String, Yaml>,
    pub(super) environment: BTreeMap<String, String>,
}

impl ComposeService {
    /// The first word of its `command`, if it overrides the image's.
    pub(super) fn command(&self) -> Option<String> {
        match self.definition.get("command")? {
            Yaml::Array(words) => words.first().and_then(Yaml::as_str).map(str::to_owned),
            other => other.as_str().map(str::to_owned),
        }
    }

    /// It serves the API (the image's default command, or `serve`).
    pub(super) fn serves(&self) -> bool {
        self.command().is_none_or(|command| command == "serve")
    }
}

/// The billing services of a compose file, by name.
pub(super) fn compose_billing_services(
    relative: &str,
    text: &str,
) -> BTreeMap<String, ComposeService> {
    let documents = yaml_documents(relative, text);
    let services = documents[0]["services"]
        .as_hash()
        .unwrap_or_else(|| panic!("{relative}: no services"));
    let mut billing = BTreeMap::new();
    for (name, service) in services {
        let service = merged(service);
        if !is_billing_service(&service) {
            continue;
        }
        assert!(
            !service.contains_key("env_file"),
            "{relative}: give the billing services their variables under `environment`, where \
             this test can check them, not in an env_file"
        );
        let environment = compose_environment(&service);
        billing.insert(
            name.as_str().unwrap_or_default().to_owned(),
            ComposeService {
                definition: service,
                environment,
            },
        );
    }
    billing
}

/// What a Kubernetes manifest directory gives the billing containers.
#[derive(Debug, Default)]
pub(super) struct KubernetesRecipes {
    /// Every variable set, with the manifest that sets it.
    pub(super) settings: Vec<Setting>,
    /// `kind/name` of each workload, with the variables its containers get from Secrets.
    pub(super) secret_variables: BTreeMap<String, BTreeSet<String>>,
    /// Every `httpGet` probe path.
    pub(super) probe_paths: BTreeSet<String>,
}

pub(super) fn kubernetes_recipes(files: &[(String, String)]) -> KubernetesRecipes {
    let mut config_maps: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    let mut workloads = Vec::new();
    for (relative, text) in files {
        for document in yaml_documents(relative, text) {
            let kind = document["kind"].as_str().unwrap_or_default().to_owned();
            let name = document["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            if kind == "ConfigMap" {
                let keys = document["data"]
                    .as_hash()
                    .map(|data| {
                        data.keys()
                            .filter_map(|k| k.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
                config_maps.insert(name, (relative.clone(), keys));
                continue;
            }
            let pod = match kind.as_str() {
                "CronJob" => &document["spec"]["jobTemplate"]["spec"]["template"]["spec"],
                _ => &document["spec"]["template"]["spec"],
            };
            if !pod.is_badvalue() {
                workloads.push((relative.clone(), format!("{kind}/{name}"), pod.clone()));
            }
        }
    }
    let mut recipes = KubernetesRecipes::default();
    for (relative, workload, pod) in workloads {
        let mut from_secrets = BTreeSet::new();
        for list in ["initContainers", "containers"] {
            for container in pod[list].as_vec().into_iter().flatten() {
                let container_name = container["name"].as_str().unwrap_or("?");
                let recipe = format!("{relative} ({workload}, container {container_name})");
                for variable in container["env"].as_vec().into_iter().flatten() {
                    let name = variable["name"].as_str().unwrap_or_default().to_owned();
                    let secret = &variable["valueFrom"]["secretKeyRef"];
                    if !secret.is_badvalue() {
                        assert_eq!(
                            secret["key"].as_str(),
                            Some(name.as_str()),
                            "{recipe}: the Secret's key should be the variable's name, as \
                             docs/deploy.md creates it"
                        );
                        from_secrets.insert(name.clone());
                    }
                    recipes.settings.push(Setting {
                        recipe: recipe.clone(),
                        name,
                    });
                }
                for source in container["envFrom"].as_vec().into_iter().flatten() {
                    assert!(
                        source["secretRef"].is_badvalue(),
                        "{recipe}: envFrom a Secret sets variables no manifest names; use env \
                         with secretKeyRef, one per variable"
                    );
                    assert!(
                        source["prefix"].is_badvalue(),
                        "{recipe}: envFrom with a prefix"
                    );
                    let map = source["configMapRef"]["name"].as_str().unwrap_or_default();
                    let (file, keys) = config_maps.get(map).unwrap_or_else(|| {
                        panic!("{recipe}: envFrom names the ConfigMap {map:?}, not in deploy/k8s")
                    });
                    recipes.settings.extend(settings(
                        &format!("{file} (ConfigMap {map}, loaded by {workload})"),
                        keys.iter().cloned(),
                    ));
                }
                for probe in ["startupProbe", "livenessProbe", "readinessProbe"] {
                    if let Some(path) = container[probe]["httpGet"]["path"].as_str() {
                        recipes.probe_paths.insert(path.to_owned());
                    }
                }
            }
        }
        recipes.secret_variables.insert(workload, from_secrets);
    }
    recipes
}

pub(super) fn kubernetes_files() -> Vec<(String, String)> {
    let directory = repository().join("deploy/k8s");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&directory)
        .expect("deploy/k8s")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .filter(|path| path.file_name().is_some_and(|n| n != "kustomization.yaml"))
        .map(|path| {
            let relative = format!(
                "deploy/k8s/{}",
                path.file_name().unwrap_or_default().to_string_lossy()
            );
            let text = std::fs::read_to_string(&path).expect("read manifest");
            (relative, text)
        })
        .collect();
    files.sort();
    files
}

// ---- env files and systemd -----------------------------------------------------------------

/// `NAME=value` lines, also when commented out (a suggestion is a setting too).
pub(super) fn env_file_variables(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim().trim_start_matches('#').trim();
            let (name, _) = line.split_once('=')?;
            let valid = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            valid.then(|| name.to_owned())
        })
        .collect()
}

/// `Environment=NAME=value …` lines of a systemd unit.
pub(super) fn systemd_variables(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("Environment="))
        .flat_map(shell_words)
        .filter_map(|word| word.split_once('=').map(|(name, _)| name.to_owned()))
        .collect()
}

// ---- the tests -----------------------------------------------------------------------------

/// Every variable set by every recipe, each recipe contributing at least one.
pub(super) fn every_recipe_setting() -> Vec<Setting> {
    let mut all = Vec::new();
    let mut add = |recipe: &str, found: Vec<Setting>| {
        assert!(
            !found.is_empty(),
            "no variables found in {recipe}: has its format changed?"
        );
        all.extend(found);
    };
    let dockerfile = read("deploy/Dockerfile");
    add(
        "deploy/Dockerfile",
        settings("deploy/Dockerfile (ENV)", dockerfile_variables(&dockerfile)),
    );
    let compose = read("deploy/compose.yaml");
    let services = compose_billing_services("deploy/compose.yaml", &compose);
    assert!(
        !services.is_empty(),
        "no billing service in deploy/compose.yaml"
    );
    for (name, service) in &services {
        add(
            &format!("deploy/compose.yaml ({name})"),
            settings(
                &format!("deploy/compose.yaml (service {name})"),
                service.environment.keys().cloned(),
            ),
        );
    }
    let kubernetes = kubernetes_recipes(&kubernetes_files());
    add("deploy/k8s", kubernetes.settings);
    add(
        "deploy/billing.env.example",
        settings(
            "deploy/billing.env.example",
            env_file_variables(&read("deploy/billing.env.example")),
        ),
    );
    // The unit takes its settings from an EnvironmentFile; any Environment= lines count too.
    all.extend(settings(
        "deploy/billing.service (Environment=)",
        systemd_variables(&read("deploy/billing.service")),
    ));
    all
}
