//! Passwords and key passphrases in the OS keychain (keyring-core), under the service name
//! `kaiport` with one account per secret (e.g. `ssh-password:alice@host:22`).
//!
//! The store is chosen once, at [`SecretStore::open`]: macOS Keychain, iOS protected data,
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
    pub fn open() -> Result<SecretStore, SecretError> {
        let (store, backend) = platform_store()?;
        Ok(SecretStore { store, backend })
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
            Ok(secret) => Ok(Some(secret)),
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(source) => Err(keychain_error("reading", account, source)),
        }
    }

    /// Saves `secret` for `account`, replacing what was there.
    pub fn set(&self, account: &str, secret: &str) -> Result<(), SecretError> {
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
    match linux_keyutils_keyring_store::Store::new() {
        Ok(store) => Ok((store, SecretBackend::KernelKeyutils)),
        Err(e) => Err(SecretError::Unavailable {
            reason: format!("no Secret Service and no kernel keyutils ({e})"),
        }),
    }
}

#[cfg(target_os = "macos")]
fn platform_store() -> Result<(Arc<CredentialStore>, SecretBackend), SecretError> {
    apple_native_keyring_store::keychain::Store::new()
        .map(|store| (store as Arc<CredentialStore>, SecretBackend::AppleKeychain))
        .map_err(|e| SecretError::Unavailable {
            reason: e.to_string(),
        })
}

#[cfg(target_os = "ios")]
fn platform_store() -> Result<(Arc<CredentialStore>, SecretBackend), SecretError> {
    apple_native_keyring_store::protected::Store::new()
        .map(|store| (store as Arc<CredentialStore>, SecretBackend::AppleProtected))
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
    fn set_get_delete_with_mock_store() {
        let store = SecretStore::with_store(keyring_core::mock::Store::new().unwrap());
        let account = ssh_password_account("alice", "h", 22);
        assert_eq!(account, "ssh-password:alice@h:22");
        // The mock store keeps nothing between entries, so only the error paths are portable:
        assert_eq!(store.get(&account).unwrap(), None);
        store.delete(&account).unwrap();
        assert_eq!(store.backend(), SecretBackend::Custom);
    }

    #[test]
    fn debug_never_shows_secrets() {
        let store = SecretStore::with_store(keyring_core::mock::Store::new().unwrap());
        assert_eq!(format!("{store:?}"), "SecretStore { backend: Custom }");
    }

    /// Real platform store round trip: on Linux CI this is kernel keyutils (no session bus).
    #[test]
    fn platform_store_round_trip() {
        let Ok(store) = SecretStore::open() else {
            return;
        };
        let account = format!("kaiport-test-{}", std::process::id());
        if store.set(&account, "s3cret value").is_err() {
            return; // A locked or absent keychain is not this test's business.
        }
        assert_eq!(
            store.get(&account).unwrap(),
            Some("s3cret value".to_owned())
        );
        store.delete(&account).unwrap();
        assert_eq!(store.get(&account).unwrap(), None);
    }
}
