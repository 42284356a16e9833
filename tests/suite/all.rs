//! End-to-end suites against real servers started by the fixtures in `kaiport-tests`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod approvals;
mod broadcast;
mod cwd;
mod documents;
mod edges;
mod engine;
mod file_pane;
mod files;
mod files_sudo;
mod fleet;
mod forwards;
mod keys;
mod lifecycle;
mod links;
mod pilot_setup;
mod policy;
mod reconnect;
mod saved;
mod scenarios;
mod ssh;
mod storage;
mod storage_big;
mod this_computer;
mod undo;
mod views;
