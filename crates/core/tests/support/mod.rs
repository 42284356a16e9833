//! Helpers several policy test binaries share.
pub mod help;
pub mod sources;
