//! Pilot's conversation in a tab: which model it talks to, and how a turn ended.
//!
//! Model settings name where the model lives and which one to use; they never hold an API key
//! (keys live in the OS keychain, or in an environment variable named here for scripts).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// The wire protocol of a model API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// Anthropic Messages API.
    Anthropic,
    /// Any OpenAI-compatible Chat Completions server (OpenAI, Ollama, llama.cpp, LM Studio,
    /// vLLM, OpenRouter, …).
    Openai,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Openai => "openai",
        }
    }

    /// Where the provider's API lives unless the settings say otherwise.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::Openai => "https://api.openai.com/v1",
        }
    }
}

/// Which model Pilot uses. No secret in here: the key comes from the keychain (account
/// `model-api-key:<provider>`) or from the environment variable `api_key_env` names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ModelSettings {
    pub provider: ProviderKind,
    /// Default: [`ProviderKind::default_base_url`].
    #[serde(default)]
    pub base_url: Option<String>,
    pub model: String,
    /// Read the API key from this environment variable instead of the keychain.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// The model's context window in tokens; older tool results are elided when the
    /// conversation nears it. Default per provider and model.
    #[serde(default)]
    pub context_tokens: Option<u32>,
    /// Longest reply the model may write, in tokens (default 4096).
    #[serde(default)]
    pub max_output_tokens: Option<u32>,
}

/// How one turn of Pilot ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum TurnStatus {
    /// The model ended its turn.
    Completed,
    /// The user (or closing the tab) stopped it.
    Cancelled,
    /// The model API or the conversation failed; the message says why.
    Failed,
    /// The engine was suspended in the background while the turn ran (a phone app that iOS
    /// stopped, a computer that slept): the turn was ended on the way back to the foreground
    /// rather than carried on against a screen that may have changed. The message says so, and
    /// the model is told in the conversation (`Op::AppForeground`).
    Interrupted,
}

/// Where a provider's API key comes from and whether it is there. Never the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeyStatus {
    /// Saved in the OS keychain (account `model-api-key:<provider>`).
    Saved,
    /// Not in the keychain (local OpenAI-compatible servers need none).
    NotSaved,
    /// Read from the environment variable `var`; `set` says whether it has a value now.
    Env { var: String, set: bool },
    /// The keychain could not be asked; `error` says why.
    Unknown { error: String },
}

/// One provider as the model picker shows it: its settings (from the settings file, or the
/// front end's override) and whether its API key is there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ModelChoice {
    pub provider: ProviderKind,
    /// None when the settings file has no section for this provider.
    #[serde(default)]
    pub settings: Option<ModelSettings>,
    pub key: KeyStatus,
}
