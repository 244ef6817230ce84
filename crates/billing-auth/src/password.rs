//! Password hashing with argon2id (OWASP minimum parameters: m = 19 MiB, t = 2, p = 1).
//!
//! Hashing costs tens of milliseconds of CPU, so async callers go through [`HashingPool`]:
//! a fixed number of threads and a bounded queue. A login flood fills the queue and gets
//! [`AuthError::Busy`] instead of starving every other request.

use std::sync::{Arc, OnceLock, mpsc};
use std::thread;

use std::cell::RefCell;

use argon2::password_hash::PasswordVerifier;
use argon2::{Algorithm, Argon2, Block, Params, Version};
use base64::Engine;
use base64::engine::general_purpose::STANDARD_NO_PAD;

use crate::error::AuthError;

/// Hashes `password` with a fresh random salt into a PHC string
/// (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`).
pub fn hash_password(password: &str) -> Result<String, AuthError> {
    let mut salt = [0u8; 16];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut salt);
    let params = Params::default();
    let mut output = [0u8; Params::DEFAULT_OUTPUT_LEN];
    argon2id(password.as_bytes(), &salt, params.clone(), &mut output)
        .map_err(|e| AuthError::Internal(format!("hashing failed: {e}")))?;
    Ok(format!(
        "$argon2id$v=19$m={},t={},p={}${}${}",
        params.m_cost(),
        params.t_cost(),
        params.p_cost(),
        STANDARD_NO_PAD.encode(salt),
        STANDARD_NO_PAD.encode(output)
    ))
}

/// True when `password` matches the PHC string `hash`; false for a malformed hash too.
pub fn verify_password(password: &str, hash: &str) -> bool {
    let Some((params, salt, expected)) = parse_phc(hash) else {
        // Not the shape this service writes: let argon2 read it (it allocates its own memory).
        return Argon2::default()
            .verify_password(password.as_bytes(), hash)
            .is_ok();
    };
    let mut output = vec![0u8; expected.len()];
    argon2id(password.as_bytes(), &salt, params, &mut output).is_ok()
        && constant_time_equal(&output, &expected)
}

/// Argon2id with this thread's reusable memory: hashing allocates nothing large, so a burst
/// of hashes cannot fragment the heap (19 MiB allocated and freed per hash once grew the
/// process by hundreds of MiB per hundred users).
fn argon2id(
    password: &[u8],
    salt: &[u8],
    params: Params,
    output: &mut [u8],
) -> Result<(), argon2::Error> {
    thread_local! {
        static MEMORY: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
    }
    let blocks = params.block_count();
    let hasher = Argon2::new(Algorithm::Argon2id, Version::V0x13, params);
    MEMORY.with(|memory| {
        let mut memory = memory.borrow_mut();
        if memory.len() < blocks {
            memory.resize(blocks, Block::default());
        }
        hasher.hash_password_into_with_memory(password, salt, output, &mut memory[..blocks])
    })
}

/// The parameters, salt and hash of an argon2id v19 PHC string with a 32-byte hash.
fn parse_phc(hash: &str) -> Option<(Params, Vec<u8>, Vec<u8>)> {
    let mut parts = hash.split('$');
    let ("", "argon2id", "v=19", costs, salt, output, None) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next(),
    ) else {
        return None;
    };
    let mut values = costs.split(',');
    let mut cost = |name: &str| -> Option<u32> { values.next()?.strip_prefix(name)?.parse().ok() };
    let (m, t, p) = (cost("m=")?, cost("t=")?, cost("p=")?);
    let output = STANDARD_NO_PAD.decode(output).ok()?;
    let params = Params::new(m, t, p, Some(output.len())).ok()?;
    Some((params, STANDARD_NO_PAD.decode(salt).ok()?, output))
}

fn constant_time_equal(left: &[u8], right: &[u8]) -> bool {
    left.len() == right.len()
        && left
            .iter()
            .zip(right)
            .fold(0u8, |difference, (a, b)| difference | (a ^ b))
            == 0
}

static DUMMY: OnceLock<String> = OnceLock::new();

/// A valid hash of no one's password, verified against when a username is unknown so the
/// answer takes as long as for a known user. Made once, by the first call: `AuthService::new`
/// makes that call, so no sign-in pays for it.
pub fn dummy_hash() -> &'static str {
    DUMMY.get_or_init(|| hash_password("no-such-user-dummy-password").unwrap_or_default())
}

/// True once [`dummy_hash`] has been made.
pub fn dummy_hash_is_ready() -> bool {
    DUMMY.get().is_some()
}

type Job = Box<dyn FnOnce() + Send>;

/// A fixed set of hashing threads behind a bounded queue.
#[derive(Clone)]
pub struct HashingPool {
    sender: Arc<mpsc::SyncSender<Job>>,
}

impl HashingPool {
    pub fn new(threads: usize, queue: usize) -> Self {
        let (sender, receiver) = mpsc::sync_channel::<Job>(queue);
        let receiver = Arc::new(std::sync::Mutex::new(receiver));
        for index in 0..threads.max(1) {
            let receiver = Arc::clone(&receiver);
            let spawned = thread::Builder::new()
                .name(format!("password-hash-{index}"))
                .spawn(move || {
                    loop {
                        let job = match receiver.lock() {
                            Ok(guard) => guard.recv(),
                            Err(_) => return,
                        };
                        match job {
                            Ok(job) => job(),
                            Err(_) => return,
                        }
                    }
                });
            if let Err(error) = spawned {
                tracing::error!(%error, "cannot start a password hashing thread");
            }
        }
        Self {
            sender: Arc::new(sender),
        }
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, AuthError> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = reply.send(work());
        });
        self.sender.try_send(job).map_err(|_| AuthError::Busy)?;
        answer
            .await
            .map_err(|_| AuthError::Internal("hashing thread stopped".into()))
    }

    pub async fn hash(&self, password: String) -> Result<String, AuthError> {
        self.run(move || hash_password(&password)).await?
    }

    pub async fn verify(&self, password: String, hash: String) -> Result<bool, AuthError> {
        self.run(move || verify_password(&password, &hash)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_salted_argon2id_and_verify() {
        let first = hash_password("correct horse battery").expect("hash");
        let second = hash_password("correct horse battery").expect("hash");
        assert_ne!(first, second, "salts differ");
        let shape: String = first.split('$').take(4).collect::<Vec<_>>().join("$");
        insta::assert_snapshot!(shape, @"$argon2id$v=19$m=19456,t=2,p=1");
        assert!(verify_password("correct horse battery", &first));
        assert!(!verify_password("wrong horse battery", &first));
        assert!(!verify_password("anything", "not a hash"));
    }

    #[test]
    fn hashes_agree_with_the_argon2_crates_own_format() {
        use argon2::PasswordHasher;
        let theirs = Argon2::default()
            .hash_password(b"correct horse battery")
            .expect("hash")
            .to_string();
        assert!(verify_password("correct horse battery", &theirs));
        assert!(!verify_password("wrong", &theirs));
        let ours = hash_password("correct horse battery").expect("hash");
        assert!(
            Argon2::default()
                .verify_password(b"correct horse battery", ours.as_str())
                .is_ok()
        );
    }

    #[test]
    fn a_saturated_pool_answers_busy_instead_of_queueing_forever() {
        let pool = HashingPool::new(1, 1);
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let blocker: Job = Box::new(move || {
            let _ = started_tx.send(());
            let _ = release_rx.recv();
        });
        pool.sender.try_send(blocker).expect("the worker takes it");
        started_rx.recv().expect("the worker is busy");
        let (queued_ran_tx, queued_ran_rx) = mpsc::channel::<()>();
        pool.sender
            .try_send(Box::new(move || {
                let _ = queued_ran_tx.send(());
            }))
            .expect("one job may wait in the queue");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let refused = runtime.block_on(pool.verify("password".into(), dummy_hash().to_owned()));
        assert!(matches!(refused, Err(AuthError::Busy)));
        release_tx.send(()).expect("release");
        // Once the queued job has run, the worker has taken it off the queue: room again.
        queued_ran_rx
            .recv()
            .expect("the queued job runs once the worker is free");
        let hashed = runtime
            .block_on(pool.hash("a-password-long-enough".into()))
            .expect("hashed once free");
        assert!(verify_password("a-password-long-enough", &hashed));
    }
}
