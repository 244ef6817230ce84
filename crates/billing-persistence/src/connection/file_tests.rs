//! A new SQLite database's directory and file are readable by their owner only.

#[cfg(unix)]
#[test]
fn a_new_sqlite_database_and_its_directory_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let root = std::env::temp_dir().join(format!("owner_only_{}", uuid::Uuid::new_v4().simple()));
    let file = root.join("data").join("billing.db");
    super::open_sqlite_for_start(file.to_str().expect("path")).expect("opened");
    let mode = |path: &std::path::Path| {
        std::fs::metadata(path)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(&root.join("data")), 0o700);
    assert_eq!(mode(&file), 0o600);
    // A database that exists keeps what its operator gave it.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    super::open_sqlite_for_start(file.to_str().expect("path")).expect("opened again");
    assert_eq!(mode(&file), 0o640);
    let _ = std::fs::remove_dir_all(root);
}
