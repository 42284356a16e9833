//! kaiport-core: the engine behind every kaiport front end.
//!
//! It owns tabs (SSH terminals, the local terminal), runs Pilot's tools through one pipeline
//! (registry → typed arguments → policy → approval → execution → capped output → events → audit
//! line) and speaks only [`kaiport_protocol`] to front ends. It never depends on Tauri or any UI.
//!
//! Main types: [`Engine`] (takes `Op`s, emits `Event`s), [`tools::registry`] (the tools of this
//! build), [`policy::decide`] (allow / ask / deny), [`audit::AuditLog`], [`terminal::Terminal`]
//! (a shell's screen mirror and command runner), [`ssh::SshSession`].

pub mod audit;
pub mod connect;
pub mod engine;
pub mod fs;
pub mod output;
pub mod pending;
pub mod policy;
pub mod shell_io;
pub mod ssh;
pub mod storage;
pub mod terminal;
pub mod tools;

pub use engine::{Engine, EngineConfig, EngineError, EventStream};
