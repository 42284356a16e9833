//! `kaiport models`: which model Pilot uses (`pilot.toml` in the config folder) and the API keys,
//! which live only in the OS keychain (account `model-api-key:<provider>`).
//!
//! A key is read from the terminal without echo, or from an environment variable for scripts;
//! this module never prints, logs or writes a key anywhere but the keychain.

use crate::connection::ConnectionOptions;
use anyhow::{Context, bail};
use kaiport_core::agent::{SETTINGS_FILE, load_model_settings};
use kaiport_core::connect::secrets::SecretStore;
use kaiport_core::llm::key_account;
use kaiport_protocol::ProviderKind;
use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum ModelsCommand {
    /// Show the model settings of each provider and whether its API key is saved.
    Show,
    /// Save a provider's API key in the OS keychain (asked at the terminal, or from --key-env).
    SetKey {
        /// anthropic, or openai (any OpenAI-compatible server).
        #[arg(value_parser = crate::pilot::parse_provider)]
        provider: ProviderKind,
        /// Take the key from this environment variable instead of asking.
        #[arg(long, value_name = "VAR")]
        key_env: Option<String>,
    },
    /// Remove a provider's API key from the OS keychain.
    ForgetKey {
        #[arg(value_parser = crate::pilot::parse_provider)]
        provider: ProviderKind,
    },
}

const PROVIDERS: [ProviderKind; 2] = [ProviderKind::Anthropic, ProviderKind::Openai];

pub fn run(command: ModelsCommand) -> anyhow::Result<ExitCode> {
    let config = ConnectionOptions::default().engine_config()?;
    match command {
        ModelsCommand::Show => {
            let settings_path = config.config_dir.join(SETTINGS_FILE);
            out!("settings: {}", settings_path.display());
            let store = SecretStore::open();
            for provider in PROVIDERS {
                let settings = load_model_settings(&config.config_dir, Some(provider))
                    .map_err(anyhow::Error::msg)?;
                let model = match &settings {
                    Some(settings) => format!(
                        "model {:?} at {}",
                        settings.model,
                        settings
                            .base_url
                            .as_deref()
                            .unwrap_or(provider.default_base_url())
                    ),
                    None => "not configured".to_owned(),
                };
                let key = match settings.as_ref().and_then(|s| s.api_key_env.as_deref()) {
                    Some(var) => format!("from ${var}"),
                    None => match store
                        .as_ref()
                        .map(|store| store.get(&key_account(provider)))
                    {
                        Ok(Ok(Some(_))) => "saved in the OS keychain".to_owned(),
                        Ok(Ok(None)) => "not saved".to_owned(),
                        Ok(Err(error)) => format!("unknown ({error})"),
                        Err(error) => format!("unknown ({error})"),
                    },
                };
                out!("{:<10} {model}; API key: {key}", provider.as_str());
            }
        }
        ModelsCommand::SetKey { provider, key_env } => {
            let key = match key_env {
                Some(var) => {
                    std::env::var(&var).with_context(|| format!("--key-env {var}: not set"))?
                }
                None => rpassword::prompt_password(format!("API key for {}: ", provider.as_str()))
                    .context("cannot read the key from the terminal (scripts: --key-env VAR)")?,
            };
            let key = key.trim();
            if key.is_empty() {
                bail!("the API key is empty; nothing was saved");
            }
            SecretStore::open()?.set(&key_account(provider), key)?;
            say!(
                "the {} API key is saved in the OS keychain",
                provider.as_str()
            );
        }
        ModelsCommand::ForgetKey { provider } => {
            SecretStore::open()?.delete(&key_account(provider))?;
            say!(
                "the {} API key is removed from the OS keychain",
                provider.as_str()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
