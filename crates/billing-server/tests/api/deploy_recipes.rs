//! The deployment recipes in `deploy/` against the binary they deploy.
//!
//! Every environment variable a recipe gives the service (the image's `ENV`, the compose
//! file's `environment`, the Kubernetes containers' `env` and the ConfigMaps they load, the
//! example environment file, the systemd unit) must be a setting `billing --help` lists: the
//! service ignores a variable it does not know, so a misspelt name would silently leave the
//! default in force. The probes and the health check must name routes the API serves, and the
//! instances behind a balancer must share one token key. (`cargo xtask deploy-check` lints the
//! Dockerfile and validates the manifests against the Kubernetes schemas.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(repository().join(relative))
        .unwrap_or_else(|e| panic!("cannot read {relative}: {e}"))
}

fn billing_stdout(args: &[&str]) -> String {
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
fn known_variables() -> BTreeSet<String> {
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
struct Setting {
    recipe: String,
    name: String,
}

fn settings(recipe: &str, names: impl IntoIterator<Item = String>) -> Vec<Setting> {
    names
        .into_iter()
        .map(|name| Setting {
            recipe: recipe.to_owned(),
            name,
        })
        .collect()
}

/// The settings among `set` that `known` does not list, as `recipe: NAME`.
fn unknown(known: &BTreeSet<String>, set: &[Setting]) -> Vec<String> {
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
fn dockerfile_instructions(text: &str) -> Vec<String> {
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
fn shell_words(text: &str) -> Vec<String> {
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
fn dockerfile_variables(text: &str) -> Vec<String> {
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
fn dockerfile_health_path(text: &str) -> Option<String> {
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

fn yaml_documents(relative: &str, text: &str) -> Vec<Yaml> {
    YamlLoader::load_from_str(text).unwrap_or_else(|e| panic!("{relative}: not YAML: {e}"))
}

fn key(name: &str) -> Yaml {
    Yaml::String(name.to_owned())
}

/// A mapping with YAML merge keys (`<<: *anchor`) applied, the mapping's own keys first.
fn merged(mapping: &Yaml) -> BTreeMap<String, Yaml> {
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

fn text_of(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(text) | Yaml::Real(text) => Some(text.clone()),
        Yaml::Integer(number) => Some(number.to_string()),
        Yaml::Boolean(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// A compose service of the billing image: one built from deploy/Dockerfile or one whose image
/// is named billing.
fn is_billing_service(service: &BTreeMap<String, Yaml>) -> bool {
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
fn compose_environment(service: &BTreeMap<String, Yaml>) -> BTreeMap<String, String> {
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
struct ComposeService {
    definition: BTreeMap<String, Yaml>,
    environment: BTreeMap<String, String>,
}

impl ComposeService {
    /// The first word of its `command`, if it overrides the image's.
    fn command(&self) -> Option<String> {
        match self.definition.get("command")? {
            Yaml::Array(words) => words.first().and_then(Yaml::as_str).map(str::to_owned),
            other => other.as_str().map(str::to_owned),
        }
    }

    /// It serves the API (the image's default command, or `serve`).
    fn serves(&self) -> bool {
        self.command().is_none_or(|command| command == "serve")
    }
}

/// The billing services of a compose file, by name.
fn compose_billing_services(relative: &str, text: &str) -> BTreeMap<String, ComposeService> {
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
struct KubernetesRecipes {
    /// Every variable set, with the manifest that sets it.
    settings: Vec<Setting>,
    /// `kind/name` of each workload, with the variables its containers get from Secrets.
    secret_variables: BTreeMap<String, BTreeSet<String>>,
    /// Every `httpGet` probe path.
    probe_paths: BTreeSet<String>,
}

fn kubernetes_recipes(files: &[(String, String)]) -> KubernetesRecipes {
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

fn kubernetes_files() -> Vec<(String, String)> {
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
fn env_file_variables(text: &str) -> Vec<String> {
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
fn systemd_variables(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("Environment="))
        .flat_map(shell_words)
        .filter_map(|word| word.split_once('=').map(|(name, _)| name.to_owned()))
        .collect()
}

// ---- the tests -----------------------------------------------------------------------------

/// Every variable set by every recipe, each recipe contributing at least one.
fn every_recipe_setting() -> Vec<Setting> {
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

#[test]
fn every_variable_the_recipes_set_is_a_setting_of_billing() {
    let known = known_variables();
    let set = every_recipe_setting();
    let unknown = unknown(&known, &set);
    assert!(
        unknown.is_empty(),
        "the deployment recipes set variables that `billing --help` does not list (the service \
         would ignore them):\n  {}\nknown: {}",
        unknown.join("\n  "),
        known.iter().cloned().collect::<Vec<_>>().join(", ")
    );
}

#[test]
fn a_misspelt_variable_in_any_recipe_is_caught() {
    // The same extraction as the real recipes, on recipes with one name wrong each.
    let known = known_variables();
    let dockerfile = "FROM rust AS build\nENV CARGO_HOME=/cargo\nFROM debian\n\
                      ENV BILLING_BIND=0.0.0.0:8080 \\\n    BILLING_DATADIR=/data\n";
    assert_eq!(
        unknown(
            &known,
            &settings("Dockerfile", dockerfile_variables(dockerfile))
        ),
        ["Dockerfile: BILLING_DATADIR"],
        "a build stage's ENV is not the service's; the final stage's is"
    );
    let compose = "x-billing: &billing\n  image: billing:local\n  environment:\n    \
                   BILLING_JWT_SECRET: x\nservices:\n  db:\n    image: postgres:17\n    \
                   environment:\n      POSTGRES_PASSWORD: x\n  api:\n    <<: *billing\n  \
                   api2:\n    image: billing:local\n    environment:\n      - BILLING_LOG_LEVEL=debug\n";
    let services = compose_billing_services("compose", compose);
    let set: Vec<Setting> = services
        .iter()
        .flat_map(|(name, service)| settings(name, service.environment.keys().cloned()))
        .collect();
    assert_eq!(unknown(&known, &set), ["api2: BILLING_LOG_LEVEL"]);
    assert!(set.iter().any(|s| s.recipe == "api"), "merge keys followed");
    let manifests = [(
        "k8s.yaml".to_owned(),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata:\n  BILLING_WORKER: \"2\"\n\
         ---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  template:\n    \
         spec:\n      containers:\n        - name: api\n          envFrom: [{configMapRef: {name: settings}}]\n          \
         env:\n            - {name: DATABASE_URL, valueFrom: {secretKeyRef: {name: s, key: DATABASE_URL}}}\n            \
         - {name: BILLING_JWT_SECRT, value: x}\n"
            .to_owned(),
    )];
    let kubernetes = kubernetes_recipes(&manifests);
    assert_eq!(
        unknown(&known, &kubernetes.settings),
        [
            "k8s.yaml (ConfigMap settings, loaded by Deployment/api): BILLING_WORKER",
            "k8s.yaml (Deployment/api, container api): BILLING_JWT_SECRT",
        ]
    );
    assert_eq!(
        unknown(
            &known,
            &settings(
                "env",
                env_file_variables("BILLING_LOG=info\n# BILLING_BRANDS=x\n")
            )
        ),
        ["env: BILLING_BRANDS"]
    );
}

#[test]
fn the_instances_share_one_token_key_and_one_database() {
    // Compose: every instance that serves gets the same DATABASE_URL and BILLING_JWT_SECRET
    // (without a shared key each would generate its own and refuse the other's tokens).
    let compose = read("deploy/compose.yaml");
    let services = compose_billing_services("deploy/compose.yaml", &compose);
    let serving: Vec<&ComposeService> = services.values().filter(|s| s.serves()).collect();
    assert!(serving.len() >= 2, "compose runs two instances");
    for variable in ["BILLING_JWT_SECRET", "DATABASE_URL"] {
        let values: BTreeSet<Option<&String>> = serving
            .iter()
            .map(|service| service.environment.get(variable))
            .collect();
        assert_eq!(values.len(), 1, "{variable} differs between the instances");
        assert!(
            values.iter().all(Option::is_some),
            "an instance lacks {variable}"
        );
    }
    // Kubernetes: the API Deployment's replicas read the key and the database URL from a
    // Secret (one value for all of them; never committed).
    let kubernetes = kubernetes_recipes(&kubernetes_files());
    let deployment = kubernetes
        .secret_variables
        .get("Deployment/billing")
        .expect("deploy/k8s has the Deployment billing");
    for variable in ["BILLING_JWT_SECRET", "DATABASE_URL"] {
        assert!(
            deployment.contains(variable),
            "Deployment/billing: {variable} from the Secret"
        );
    }
    // No manifest commits a secret value.
    for (relative, text) in kubernetes_files() {
        for document in yaml_documents(&relative, &text) {
            assert_ne!(
                document["kind"].as_str(),
                Some("Secret"),
                "{relative}: a Secret with its values is committed"
            );
        }
    }
}

#[test]
fn probes_and_the_health_check_name_routes_the_api_serves() {
    let openapi: serde_json::Value =
        serde_json::from_str(&billing_stdout(&["openapi"])).expect("the OpenAPI document");
    let paths = openapi["paths"].as_object().expect("paths");
    let kubernetes = kubernetes_recipes(&kubernetes_files());
    assert!(
        kubernetes.probe_paths.contains("/health/live")
            && kubernetes.probe_paths.contains("/health/ready"),
        "the Deployment probes liveness and readiness: {:?}",
        kubernetes.probe_paths
    );
    let health = dockerfile_health_path(&read("deploy/Dockerfile"))
        .expect("the Dockerfile has an HTTP HEALTHCHECK");
    for path in kubernetes.probe_paths.iter().chain([&health]) {
        assert!(paths.contains_key(path), "{path} is not a route of the API");
    }
}

#[test]
fn the_proxy_passes_the_underscored_header_to_every_instance() {
    let nginx = read("deploy/nginx/billing.conf");
    let active: String = nginx
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        active.contains("underscores_in_headers on;"),
        "nginx drops the PATCH header cascade_end_date without underscores_in_headers on"
    );
    let compose = read("deploy/compose.yaml");
    for (name, service) in compose_billing_services("deploy/compose.yaml", &compose) {
        assert_eq!(
            active.contains(&format!("server {name}:8080")),
            service.serves(),
            "nginx's upstream and compose's serving instances disagree about {name}"
        );
    }
}

#[test]
fn the_instances_trust_exactly_the_proxy_that_sets_x_forwarded_for() {
    let nginx = read("deploy/nginx/billing.conf");
    assert!(
        nginx
            .lines()
            .any(|line| line.split('#').next().unwrap_or_default().trim()
                == "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;"),
        "nginx must append the client's address to X-Forwarded-For"
    );
    let compose = read("deploy/compose.yaml");
    let documents = yaml_documents("deploy/compose.yaml", &compose);
    let nginx_address = documents[0]["services"]["nginx"]["networks"]["billing"]["ipv4_address"]
        .as_str()
        .expect("nginx has a fixed address on the billing network")
        .to_owned();
    for (name, service) in compose_billing_services("deploy/compose.yaml", &compose) {
        if service.serves() {
            assert_eq!(
                service.environment.get("BILLING_TRUSTED_PROXIES"),
                Some(&nginx_address),
                "{name} must trust nginx's address, and only it"
            );
        }
    }
    let configmap = read("deploy/k8s/configmap.yaml");
    let documents = yaml_documents("deploy/k8s/configmap.yaml", &configmap);
    let trusted = documents[0]["data"]["BILLING_TRUSTED_PROXIES"]
        .as_str()
        .expect("the ConfigMap names the trusted proxies");
    billing_http::machinery::proxies::TrustedProxies::parse(trusted).expect("a valid setting");
    billing_http::machinery::proxies::TrustedProxies::parse(&nginx_address).expect("valid");
}

/// The value of nginx directive `name` (its first argument) in the active lines of `text`.
fn nginx_directive<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .find_map(|line| line.strip_prefix(name).filter(|rest| rest.starts_with(' ')))
        .map(|rest| rest.trim().trim_end_matches(';'))
}

/// `16k`, `8m`, `40k` in bytes.
fn nginx_size(value: &str) -> usize {
    let (digits, unit) = value.split_at(value.len() - 1);
    let number: usize = digits
        .parse()
        .unwrap_or_else(|_| value.parse().expect("a size"));
    match unit {
        "k" => number * 1024,
        "m" => number * 1024 * 1024,
        _ => value.parse().expect("a size"),
    }
}

#[test]
fn the_proxy_buffers_hold_what_the_service_accepts_and_sends() {
    use billing_http::machinery::list::MAX_LINK_BYTES;
    use billing_http::request_context::{MAX_HEADER_BYTES, MAX_URI_BYTES};
    use billing_http::routes::rating_lookups::BODY_LIMIT_BYTES;
    let nginx = read("deploy/nginx/billing.conf");
    let body =
        nginx_size(nginx_directive(&nginx, "client_max_body_size").expect("client_max_body_size"));
    assert!(
        body >= BODY_LIMIT_BYTES,
        "nginx refuses rating bodies the service accepts"
    );
    let headers = nginx_directive(&nginx, "large_client_header_buffers")
        .expect("large_client_header_buffers");
    let each = nginx_size(headers.split_whitespace().nth(1).expect("a size"));
    assert!(
        each > MAX_URI_BYTES.max(MAX_HEADER_BYTES),
        "nginx answers 414/400 itself, without problem+json"
    );
    // A response head: the Link header at its longest, and room for the rest.
    let buffer =
        nginx_size(nginx_directive(&nginx, "proxy_buffer_size").expect("proxy_buffer_size"));
    assert!(
        buffer >= MAX_LINK_BYTES + 4096,
        "nginx would answer 502 for a long Link header"
    );
    // systemd tries a failed start again after a pause, not in a tight loop.
    let unit = read("deploy/billing.service");
    assert!(
        unit.lines().any(|line| line.trim() == "RestartSec=5"),
        "{unit}"
    );
}
