//! The deployment recipes in `deploy/` against the binary they deploy.
//!
//! Every environment variable a recipe gives the service (the image's `ENV`, the compose
//! file's `environment`, the Kubernetes containers' `env` and the ConfigMaps they load, the
//! example environment file, the systemd unit) must be a setting `billing --help` lists: the
//! service ignores a variable it does not know, so a misspelt name would silently leave the
//! default in force. The probes and the health check must name routes the API serves, and the
//! instances behind a balancer must share one token key. (`cargo xtask deploy-check` lints the
//! Dockerfile and validates the manifests against the Kubernetes schemas.)

use std::collections::BTreeSet;

mod reading;

use reading::*;

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
