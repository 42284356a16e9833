//! Connection profiles, URLs, ~/.ssh/config import, known hosts, and secrets in the OS keychain.
//!
//! [`profiles`] keeps the user's saved connections (`connections.toml`, never a secret in it),
//! [`storage_profiles`] holds the storage kinds of profiles (S3, WebDAV, Azure, FTP(S), SFTP),
//! [`ssh_config`] imports hosts from OpenSSH's config, [`known_hosts`] reads and appends OpenSSH
//! `known_hosts` files, [`secrets`] stores passwords and passphrases in the OS keychain,
//! [`library`] lists and changes the saved connections for front ends (`Op::SaveConnection`, …),
//! [`destination`] parses `ssh://user@host:port` / `user@host` into an [`crate::ssh::SshTarget`],
//! and [`paths`] expands the `~` of paths the user wrote.
//!
//! The modules use each other one way only: [`paths`] uses none of them, [`storage_profiles`]
//! only [`paths`], [`profiles`] builds its `ProfileKind` on [`storage_profiles`], and
//! [`ssh_config`] and [`library`] build on [`profiles`].
//!
//! Nothing here opens a network connection.

pub mod destination;
pub mod known_hosts;
pub mod library;
pub mod paths;
pub mod profiles;
pub mod secrets;
pub mod ssh_config;
#[cfg(test)]
mod storage_profile_tests;
pub mod storage_profiles;
