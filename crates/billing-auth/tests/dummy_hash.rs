//! The dummy hash (verified against for unknown usernames) is made when the service is built,
//! not by the first sign-in on an async worker. Its own test binary: nothing else in this
//! process makes the hash first.

use std::time::Duration;

use billing_auth::throttle::ThrottlePolicy;
use billing_auth::{AuthConfig, AuthService, Secret, password};
use billing_persistence::{Database, DatabaseConfig};

#[test]
fn the_dummy_hash_is_ready_once_the_service_is_built() {
    let data_dir = std::env::temp_dir().join(format!(
        "billing_auth_dummy_{}",
        uuid::Uuid::new_v4().simple()
    ));
    let database = Database::open(&DatabaseConfig {
        url: None,
        data_dir: data_dir.clone(),
        pool_size: 1,
        connection_timeout: Duration::from_secs(5),
    })
    .expect("database");
    assert!(!password::dummy_hash_is_ready(), "nothing made it yet");
    let _service = AuthService::new(
        database,
        AuthConfig {
            signing_key: Secret::new("a-signing-key-of-at-least-32-characters"),
            issuer: "billing".into(),
            audience: "billing-api".into(),
            access_token_lifetime: Duration::from_secs(900),
            refresh_token_lifetime: Duration::from_secs(86_400),
            brand: None,
            throttle: ThrottlePolicy::default(),
            hashing_threads: 1,
            hashing_queue: 1,
        },
    );
    assert!(password::dummy_hash_is_ready());
    assert!(
        !password::verify_password("no-such-user-dummy-password-x", password::dummy_hash()),
        "a real argon2 hash"
    );
    assert!(password::dummy_hash().starts_with("$argon2id$"));
    let _ = std::fs::remove_dir_all(data_dir);
}
