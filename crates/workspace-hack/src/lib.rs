//! No code. This crate only names dependencies with the features the whole workspace turns on,
//! so that a build of one package with other features of its own (the phone's `kaiport`,
//! `kaiport-core`'s tests alone) compiles only this workspace's crates again. See its
//! Cargo.toml.
