//! kaiport-protocol: the contract between the kaiport engine and every front end.
//!
//! Front ends (the Tauri window, `kaiport serve`, `kaiport pilot`, `kaiport tool`) send
//! [`Op`]s and receive [`Event`]s; the tool parameter and result types in [`tools`] are what
//! the model sees, and their JSON schemas are generated from the Rust types. Plain data only:
//! no I/O, no async runtime, no business logic.

pub mod broadcast;
pub mod common;
pub mod events;
pub mod facts;
pub mod fleet;
pub mod forwards;
pub mod ops;
pub mod pilot;
pub mod saved;
pub mod settings;
pub mod snippets;
pub mod tools;
pub mod views;

pub use broadcast::*;
pub use common::*;
pub use events::*;
pub use facts::HostFacts;
pub use fleet::*;
pub use forwards::*;
pub use ops::*;
pub use pilot::*;
pub use saved::*;
pub use settings::*;
pub use snippets::*;
pub use tools::{ToolName, parameters_schema};
pub use views::*;
