//! kaiport-core: the engine behind every kaiport front end.
//!
//! It owns tabs (SSH terminals, the local terminal), runs Pilot's tools through one pipeline
//! (registry → typed arguments → policy → approval → execution → capped output → events → audit
//! line) and speaks only [`kaiport_protocol`] to front ends. It never depends on Tauri or any UI.
//!
//! Main types: [`Engine`] (takes `Op`s, emits `Event`s), [`tools::registry`] (the tools of this
//! build), [`policy::decide`] (allow / ask / deny), [`audit::AuditLog`], [`terminal::Terminal`]
//! (a shell's screen mirror and command runner), [`ssh::SshSession`], [`policy::analyse`] (what a
//! command line would run), [`taint`] (untrusted-data framing and the connections a session has
//! seen) and, with feature `plan`, `plan::PlanBook` (propose_plan / update_plan state).

pub mod agent;
pub mod audit;
pub mod backup;
pub mod config;
pub mod connect;
pub mod engine;
pub mod fleet;
pub mod forward;
pub mod fs;
pub mod lifecycle;
pub mod limits;
pub mod llm;
pub mod output;
pub mod pending;
#[cfg(feature = "plan")]
pub mod plan;
pub mod policy;
pub mod redact;
mod saved_ops;
pub mod shell_io;
pub mod snippets;
pub mod ssh;
pub mod storage;
pub mod taint;
pub mod terminal;
pub mod tools;
#[cfg(feature = "show-view")]
pub mod views;

pub use engine::{Engine, EngineConfig, EngineError, EventStream};
