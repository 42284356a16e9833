//! Passwords and key passphrases in the OS keychain (keyring-core), under the service name
//! `kaiport` with one account per secret (e.g. `ssh-password:alice@host:22`).
//!
//! The store is chosen once, at [`SecretStore::open`], in one place (`platform_store`, by
//! target): macOS Keychain, iOS protected data (the app's access group), Android's Keystore,
//! Windows Credential Manager; on Linux the Secret Service (GNOME Keyring, KWallet) over D-Bus,
//! falling back to the kernel keyutils store, whose secrets do not survive a reboot, when there is
//! no session bus or Secret Service (headless machines). Calls block on the platform store: from
//! async code, run them in `tokio::task::spawn_blocking`.
//!
//! This module must never log, print or put a secret into an error message; errors name the
//! account only.

use std::sync::Arc;

use keyring_core::{CredentialStore, Entry};

/// The keychain service name all kaiport secrets are stored under.
pub const SERVICE: &str = "kaiport";

/// Which platform store holds the secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretBackend {
    /// freedesktop Secret Service over D-Bus (Linux desktops).
    SecretService,
    /// Linux kernel keyutils: secrets last until reboot.
    KernelKeyutils,
    /// macOS Keychain.
    AppleKeychain,
    /// iOS protected data store.
    AppleProtected,
    /// Android: SharedPreferences encrypted with a key in the Android Keystore.
    AndroidKeystore,
    /// Windows Credential Manager.
    WindowsCredentialManager,
    /// A store handed in by the caller (tests, embedding).
    Custom,
}

/// Errors of the secret store. Never contains a secret.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error(
        "no OS keychain is available on this system: {reason}. Secrets cannot be saved; enter them when asked."
    )]
    Unavailable { reason: String },
    /// An earlier attempt in this process failed (its whole message).
    #[error("{reason}")]
    Opened { reason: String },
    // The cause is in the message, not chained as a source, so it is not printed twice.
    #[error(
        "the OS keychain refused {operation} the secret {account:?}: {cause}. If the keychain is locked, \
         unlock it and try again; otherwise enter the secret when asked (scripts: --password-env)."
    )]
    Keychain {
        operation: &'static str,
        account: String,
        cause: keyring_core::Error,
    },
}

/// The OS keychain, as kaiport uses it. Cheap to clone.
#[derive(Clone)]
pub struct SecretStore {
    store: Arc<CredentialStore>,
    backend: SecretBackend,
}

impl std::fmt::Debug for SecretStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretStore")
            .field("backend", &self.backend)
            .finish()
    }
}

impl SecretStore {
    /// Opens the platform's store (see the module docs for the choice).
    /// The store is opened once per process (its warnings, such as "secrets do not survive a
    /// reboot", are said once) and only when a secret is looked up or saved.
    pub fn open() -> Result<SecretStore, SecretError> {
        static OPENED: std::sync::OnceLock<Result<(Arc<CredentialStore>, SecretBackend), String>> =
            std::sync::OnceLock::new();
        match OPENED.get_or_init(|| platform_store().map_err(|error| error.to_string())) {
            Ok((store, backend)) => Ok(SecretStore {
                store: store.clone(),
                backend: *backend,
            }),
            Err(reason) => Err(SecretError::Opened {
                reason: reason.clone(),
            }),
        }
    }

    /// Uses `store` (for tests: `keyring_core::mock::Store::new()`).
    pub fn with_store(store: Arc<CredentialStore>) -> SecretStore {
        SecretStore {
            store,
            backend: SecretBackend::Custom,
        }
    }

    /// Which store is in use.
    pub fn backend(&self) -> SecretBackend {
        self.backend
    }

    /// The secret saved for `account`, if any.
    pub fn get(&self, account: &str) -> Result<Option<String>, SecretError> {
        match self.entry(account, "reading")?.get_password() {
            Ok(secret) => {
                crate::redact::remember(&secret);
                Ok(Some(secret))
            }
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(source) => Err(keychain_error("reading", account, source)),
        }
    }

    /// Saves `secret` for `account`, replacing what was there.
    pub fn set(&self, account: &str, secret: &str) -> Result<(), SecretError> {
        crate::redact::remember(secret);
        self.entry(account, "saving")?
            .set_password(secret)
            .map_err(|source| keychain_error("saving", account, source))
    }

    /// Forgets the secret for `account`; no secret there is fine.
    pub fn delete(&self, account: &str) -> Result<(), SecretError> {
        match self.entry(account, "deleting")?.delete_credential() {
            Ok(()) | Err(keyring_core::Error::NoEntry) => Ok(()),
            Err(source) => Err(keychain_error("deleting", account, source)),
        }
    }

    fn entry(&self, account: &str, operation: &'static str) -> Result<Entry, SecretError> {
        // A session keyring belongs to a thread's credentials, not to the process: every thread
        // that touches the kernel store needs a usable one (a tokio blocking thread, a test's).
        #[cfg(target_os = "linux")]
        if self.backend == SecretBackend::KernelKeyutils {
            ensure_usable_session_keyring();
        }
        Entry::new_in_store(&self.store, SERVICE, account)
            .map_err(|source| keychain_error(operation, account, source))
    }
}

/// The account name for an SSH password: `ssh-password:user@host:port`.
pub fn ssh_password_account(user: &str, host: &str, port: u16) -> String {
    format!("ssh-password:{user}@{host}:{port}")
}

/// The account name for a private key's passphrase: `ssh-passphrase:<path>`.
pub fn key_passphrase_account(key_path: &std::path::Path) -> String {
    format!("ssh-passphrase:{}", key_path.display())
}

fn keychain_error(
    operation: &'static str,
    account: &str,
    cause: keyring_core::Error,
) -> SecretError {
    SecretError::Keychain {
        operation,
        account: account.to_owned(),
        cause,
    }
}

#[cfg(target_os = "linux")]
fn platform_store() -> Result<(Arc<CredentialStore>, SecretBackend), SecretError> {
    match zbus_secret_service_keyring_store::Store::new() {
        Ok(store) => return Ok((store, SecretBackend::SecretService)),
        Err(e) => {
            tracing::warn!(
                error = %e,
                "no Secret Service (D-Bus) available; using the kernel keyutils store: saved \
                 secrets do not survive a reboot"
            );
        }
    }
    ensure_usable_session_keyring();
    match linux_keyutils_keyring_store::Store::new() {
        Ok(store) => Ok((store, SecretBackend::KernelKeyutils)),
        Err(e) => Err(SecretError::Unavailable {
            reason: format!("no Secret Service and no kernel keyutils ({e})"),
        }),
    }
}

/// A process without a session keyring of its own (a daemon, a container, cron: no login made
/// one) runs on the user's default session keyring `_uid_ses.N`, through which the persistent
/// keyring cannot be written, or on one it may not read. It then joins a new session keyring;
/// the store keeps its secrets in the user's persistent keyring, which outlives the process.
/// Joining changes only the calling thread's credentials (threads started later from it inherit
/// them), so [`SecretStore`] calls this on every thread before each use: two cheap syscalls when
/// the thread's keyring is already usable.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn ensure_usable_session_keyring() {
    const KEYCTL_GET_KEYRING_ID: libc::c_long = 0;
    const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
    const KEYCTL_SETPERM: libc::c_long = 5;
    const KEYCTL_DESCRIBE: libc::c_long = 6;
    const KEY_SPEC_SESSION_KEYRING: libc::c_long = -3;
    let mut description = [0u8; 256];
    // SAFETY: keyctl with integer arguments and a buffer of the length given; nothing is kept.
    let readable = unsafe {
        let id = libc::syscall(
            libc::SYS_keyctl,
            KEYCTL_GET_KEYRING_ID,
            KEY_SPEC_SESSION_KEYRING,
            0 as libc::c_long,
        );
        id >= 0
            && libc::syscall(
                libc::SYS_keyctl,
                KEYCTL_DESCRIBE,
                id,
                description.as_mut_ptr(),
                description.len(),
            ) >= 0
    };
    let name = String::from_utf8_lossy(&description);
    let name = name.trim_end_matches('\0');
    if readable
        && !name
            .rsplit(';')
            .next()
            .is_some_and(|last| last.starts_with("_uid_ses."))
    {
        return;
    }
    // SAFETY: a NULL name asks for a new anonymous session keyring; the permission call takes
    // integers only.
    let joined = unsafe {
        let id = libc::syscall(
            libc::SYS_keyctl,
            KEYCTL_JOIN_SESSION_KEYRING,
            std::ptr::null::<libc::c_char>(),
        );
        if id >= 0 {
            // Possessor and user: everything (view, read, write, search, link, setattr).
            libc::syscall(
                libc::SYS_keyctl,
                KEYCTL_SETPERM,
                id,
                0x3f3f_0000 as libc::c_long,
            );
        }
        id >= 0
    };
    tracing::debug!(joined, "the inherited session keyring was not usable");
}

#[cfg(target_os = "macos")]
fn platform_store() -> Result<(Arc<CredentialStore>, SecretBackend), SecretError> {
    apple_native_keyring_store::keychain::Store::new()
        .map(|store| (store as Arc<CredentialStore>, SecretBackend::AppleKeychain))
        .map_err(|e| SecretError::Unavailable {
            reason: e.to_string(),
        })
}

/// The app's items live in its keychain access group: the one named at build time by
/// `KAIPORT_IOS_KEYCHAIN_GROUP` (`TEAMID.dev.kaiport.mobile`, the entitlement in
/// mobile/ios/kaiport.entitlements), else the app's default group, which is that
/// entitlement's first entry. Either way no other app reads them.
#[cfg(target_os = "ios")]
fn platform_store() -> Result<(Arc<CredentialStore>, SecretBackend), SecretError> {
    let mut configuration = std::collections::HashMap::new();
    if let Some(group) = option_env!("KAIPORT_IOS_KEYCHAIN_GROUP").filter(|g| !g.is_empty()) {
        configuration.insert("access-group", group);
    }
    apple_native_keyring_store::protected::Store::new_with_configuration(&configuration)
        .map(|store| (store as Arc<CredentialStore>, SecretBackend::AppleProtected))
        .map_err(|e| SecretError::Unavailable {
            reason: e.to_string(),
        })
}

/// The app's own named store: its SharedPreferences file, encrypted with a key kept in the
/// Android Keystore. Tauri's Android runtime provides the context the store needs.
#[cfg(target_os = "android")]
fn platform_store() -> Result<(Arc<CredentialStore>, SecretBackend), SecretError> {
    android_native_keyring_store::Store::new()
        .map(|store| {
            (
                store as Arc<CredentialStore>,
                SecretBackend::AndroidKeystore,
            )
        })
        .map_err(|e| SecretError::Unavailable {
            reason: e.to_string(),
        })
}

#[cfg(target_os = "windows")]
fn platform_store() -> Result<(Arc<CredentialStore>, SecretBackend), SecretError> {
    windows_native_keyring_store::Store::new()
        .map(|store| {
            (
                store as Arc<CredentialStore>,
                SecretBackend::WindowsCredentialManager,
            )
        })
        .map_err(|e| SecretError::Unavailable {
            reason: e.to_string(),
        })
}

#[cfg(not(any(
    target_os = "linux",
    target_os = "macos",
    target_os = "ios",
    target_os = "android",
    target_os = "windows"
)))]
fn platform_store() -> Result<(Arc<CredentialStore>, SecretBackend), SecretError> {
    Err(SecretError::Unavailable {
        reason: "this platform has no supported keychain".to_owned(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn set_get_delete_with_an_in_memory_store() {
        let store = SecretStore::with_store(keyring_core::sample::Store::new().unwrap());
        let account = ssh_password_account("alice", "h", 22);
        assert_eq!(account, "ssh-password:alice@h:22");
        assert_eq!(store.get(&account).unwrap(), None);
        store.set(&account, "s3cret value").unwrap();
        assert_eq!(
            store.get(&account).unwrap().as_deref(),
            Some("s3cret value")
        );
        store.set(&account, "replaced").unwrap();
        assert_eq!(store.get(&account).unwrap().as_deref(), Some("replaced"));
        store.delete(&account).unwrap();
        assert_eq!(store.get(&account).unwrap(), None);
        // Deleting what is not there is fine.
        store.delete(&account).unwrap();
        assert_eq!(store.backend(), SecretBackend::Custom);
    }

    #[test]
    fn debug_never_shows_secrets() {
        let store = SecretStore::with_store(keyring_core::mock::Store::new().unwrap());
        assert_eq!(format!("{store:?}"), "SecretStore { backend: Custom }");
    }

    /// Real platform store round trip: on Linux CI this is kernel keyutils (no session bus). A
    /// machine without one fails here, saying what is missing.
    #[test]
    fn platform_store_round_trip() {
        let store = SecretStore::open().unwrap_or_else(|error| {
            panic!(
                "no platform keychain: {error} (Linux needs a Secret Service or kernel keyutils)"
            )
        });
        let account = format!("kaiport-test-{}", std::process::id());
        store.set(&account, "s3cret value").unwrap_or_else(|error| {
            panic!(
                "the platform keychain ({:?}) refused a secret: {error}",
                store.backend()
            )
        });
        assert_eq!(
            store.get(&account).unwrap(),
            Some("s3cret value".to_owned())
        );
        store.delete(&account).unwrap();
        assert_eq!(store.get(&account).unwrap(), None);
    }
}
