//! Setting Pilot up from a front end: a provider's model list and a one-request test of a
//! provider, model, address and key, each answered in words a person can act on.
//!
//! Never logs, returns or puts into a message the API key it is given or finds.

use super::{
    LlmError, Message, ModelRequest, error_detail, http_client, network_error, provider_for,
    resolve_api_key,
};
use kaiport_protocol::{ModelSettings, ProviderKind};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long a test request or a model list may take, connecting included.
const SETUP_TIMEOUT: Duration = Duration::from_secs(60);
/// Most model names kept from one list.
const MAX_MODELS: usize = 500;

/// The key to use: `given` when it is not empty, else the one the settings would use.
fn key_for(settings: &ModelSettings, given: Option<String>) -> Result<Option<String>, String> {
    match given.map(|key| key.trim().to_owned()) {
        Some(key) if !key.is_empty() => {
            crate::redact::remember(&key);
            Ok(Some(key))
        }
        _ => resolve_api_key(settings).map_err(|error| error.to_string()),
    }
}

/// One tiny request to the model of `settings`: `Ok` with what it answered, else why not.
pub async fn test_model(
    settings: &ModelSettings,
    api_key: Option<String>,
) -> Result<String, String> {
    if settings.model.trim().is_empty() {
        return Err("choose a model first".to_owned());
    }
    let key = key_for(settings, api_key)?;
    let provider = provider_for(settings, key).map_err(|error| error.to_string())?;
    let messages = [Message::User {
        text: "Reply with the single word OK.".to_owned(),
    }];
    let request = ModelRequest {
        system: "You are answering a connection test.",
        messages: &messages,
        tools: &[],
        max_output_tokens: 16,
        tab_now: "",
        wire: None,
    };
    let cancel = CancellationToken::new();
    let reply = tokio::time::timeout(
        SETUP_TIMEOUT,
        provider.complete(&request, &cancel, &mut |_| {}),
    )
    .await
    .map_err(|_| {
        format!(
            "{} did not answer within {} s",
            settings.model,
            SETUP_TIMEOUT.as_secs()
        )
    })?
    .map_err(|error| error.to_string())?;
    let text: String = reply.text.trim().chars().take(80).collect();
    Ok(if text.is_empty() {
        format!("{} answered (with no text)", settings.model)
    } else {
        format!("{} answered: {text}", settings.model)
    })
}

/// The models the provider of `settings` offers, sorted: Anthropic's `GET /v1/models`, an
/// OpenAI-compatible server's `GET {base}/models`.
pub async fn list_models(
    settings: &ModelSettings,
    api_key: Option<String>,
) -> Result<Vec<String>, String> {
    let provider = settings.provider.as_str();
    let key = key_for(settings, api_key)?;
    let base = settings
        .base_url
        .clone()
        .unwrap_or_else(|| settings.provider.default_base_url().to_owned());
    let base = base.trim_end_matches('/');
    let client = http_client(provider).map_err(|error| error.to_string())?;
    let (url, request) = match settings.provider {
        ProviderKind::Anthropic => {
            let url = format!("{base}/v1/models?limit=1000");
            let request = client
                .get(&url)
                .header("x-api-key", key.unwrap_or_default())
                .header("anthropic-version", super::anthropic::API_VERSION);
            (url, request)
        }
        ProviderKind::Openai => {
            let url = format!("{base}/models");
            let mut request = client.get(&url);
            if let Some(key) = key {
                request = request.bearer_auth(key);
            }
            (url, request)
        }
    };
    let response = tokio::time::timeout(SETUP_TIMEOUT, request.send())
        .await
        .map_err(|_| {
            format!(
                "{provider} at {url} did not answer within {} s",
                SETUP_TIMEOUT.as_secs()
            )
        })?
        .map_err(|error| network_error(provider, &url, &error).to_string())?;
    let status = response.status();
    let body = tokio::time::timeout(SETUP_TIMEOUT, response.text())
        .await
        .map_err(|_| format!("{provider} at {url} stopped sending its model list"))?
        .map_err(|error| network_error(provider, &url, &error).to_string())?;
    if !status.is_success() {
        let detail = error_detail(&body);
        return Err(match status.as_u16() {
            401 | 403 => LlmError::Auth {
                provider,
                status: status.as_u16(),
                detail,
            }
            .to_string(),
            404 => format!(
                "{provider} has no model list at {url} (HTTP 404): check the base URL, or type the model's name"
            ),
            code => format!("{provider} answered HTTP {code} for its model list: {detail}"),
        });
    }
    let parsed: serde_json::Value = serde_json::from_str(&body).map_err(|error| {
        format!("{provider}'s model list at {url} is not JSON kaiport can read: {error}")
    })?;
    let Some(data) = parsed.get("data").and_then(serde_json::Value::as_array) else {
        return Err(format!(
            "{provider}'s model list at {url} has no \"data\" list"
        ));
    };
    let mut models: Vec<String> = data
        .iter()
        .filter_map(|model| model.get("id").and_then(serde_json::Value::as_str))
        .map(|id| id.chars().take(200).collect())
        .collect();
    models.sort();
    models.dedup();
    models.truncate(MAX_MODELS);
    Ok(models)
}
