//! Setting Pilot up from a front end, through the engine's ops (what the app's "Pilot settings"
//! dialog sends): the provider's model list, a test request and saving the settings file,
//! against the scripted model server speaking both APIs.

use crate::saved::next;
use kaiport_core::{Engine, EngineConfig};
use kaiport_protocol::*;
use kaiport_tests::model_server::ModelServer;
use pretty_assertions::assert_eq;
use serde_json::json;

const KEY: &str = "sk-setup-test-key-0123456789";

fn settings(provider: ProviderKind, server: &ModelServer, model: &str) -> ModelSettings {
    ModelSettings {
        provider,
        base_url: Some(match provider {
            ProviderKind::Anthropic => server.anthropic_url(),
            ProviderKind::Openai => server.openai_url(),
        }),
        model: model.to_owned(),
        api_key_env: None,
        context_tokens: None,
        max_output_tokens: None,
    }
}

fn tested(event: Event) -> Option<(bool, String)> {
    match event {
        Event::ModelTested { ok, message, .. } => Some((ok, message)),
        _ => None,
    }
}

fn listed(event: Event) -> Option<(Vec<String>, Option<String>)> {
    match event {
        Event::ProviderModels {
            models, problem, ..
        } => Some((models, problem)),
        _ => None,
    }
}

fn saved(event: Event) -> Option<Option<String>> {
    match event {
        Event::ModelSettingsSaved { problem, .. } => Some(problem),
        _ => None,
    }
}

/// With either API: the model list and a test request work with the right key, and with a
/// wrong one say the key was refused, in words, without the key.
#[tokio::test(flavor = "multi_thread")]
async fn the_model_list_and_a_test_request_work_with_the_key_and_say_when_it_is_refused() {
    for provider in [ProviderKind::Anthropic, ProviderKind::Openai] {
        let server = ModelServer::from_json(json!({
            "api_key": KEY,
            "models": ["zeta-model", "alpha-model"],
            "steps": [{"respond": {"text": "OK"}}]
        }))
        .unwrap();
        let home = tempfile::tempdir().unwrap();
        let (engine, mut events) = Engine::new(EngineConfig::in_dir(home.path())).unwrap();
        let asked = settings(provider, &server, "alpha-model");

        engine
            .handle(Op::ListProviderModels {
                settings: asked.clone(),
                api_key: Some(KEY.to_owned()),
            })
            .await;
        let (models, problem) = next(&mut events, listed).await;
        assert_eq!(problem, None, "{provider:?}");
        assert_eq!(models, ["alpha-model", "zeta-model"], "{provider:?}");

        engine
            .handle(Op::ListProviderModels {
                settings: asked.clone(),
                api_key: Some("sk-wrong-key-0000000000".to_owned()),
            })
            .await;
        let (models, problem) = next(&mut events, listed).await;
        assert!(models.is_empty());
        let problem = problem.unwrap();
        assert!(
            problem.contains("refused the API key (HTTP 401)"),
            "{problem}"
        );
        assert!(!problem.contains("sk-wrong"), "{problem}");

        engine
            .handle(Op::TestModel {
                settings: asked.clone(),
                api_key: Some(KEY.to_owned()),
            })
            .await;
        assert_eq!(
            next(&mut events, tested).await,
            (true, "alpha-model answered: OK".to_owned()),
            "{provider:?}"
        );
        assert!(server.failures().is_empty(), "{:?}", server.failures());

        engine
            .handle(Op::TestModel {
                settings: asked,
                api_key: Some("sk-wrong-key-0000000000".to_owned()),
            })
            .await;
        let (ok, message) = next(&mut events, tested).await;
        assert!(!ok);
        assert!(message.contains("refused the API key"), "{message}");
        assert!(!message.contains("sk-wrong"), "{message}");
    }
}

/// Saving writes the provider's section and makes it the one used, keeping the file's other
/// sections and comments; bad settings are refused with the reason and change nothing.
#[tokio::test(flavor = "multi_thread")]
async fn saving_keeps_the_rest_of_the_settings_file_and_refuses_bad_settings() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("pilot.toml");
    let before = "# chosen by hand\nprovider = \"anthropic\"\n\n[anthropic]\nmodel = \"claude-x\" # the big one\n";
    std::fs::write(&path, before).unwrap();
    let (engine, mut events) = Engine::new(EngineConfig::in_dir(home.path())).unwrap();
    let server = ModelServer::from_json(json!({"steps": []})).unwrap();

    let mut local = settings(ProviderKind::Openai, &server, "llama-local");
    local.context_tokens = Some(32_768);
    engine
        .handle(Op::SaveModelSettings {
            settings: local.clone(),
            api_key: None,
        })
        .await;
    assert_eq!(next(&mut events, saved).await, None);
    let after = std::fs::read_to_string(&path).unwrap();
    for kept in ["# chosen by hand", "model = \"claude-x\" # the big one"] {
        assert!(after.contains(kept), "{kept:?} lost:\n{after}");
    }
    assert_eq!(
        kaiport_core::agent::load_model_settings(home.path(), None).unwrap(),
        Some(local.clone())
    );
    engine.handle(Op::ListModels).await;
    let current = next(&mut events, |event| match event {
        Event::Models { current, .. } => Some(current),
        _ => None,
    })
    .await;
    assert_eq!(current, Some(local.clone()));

    for (bad, reason) in [
        (
            ModelSettings {
                model: "  ".to_owned(),
                ..local.clone()
            },
            "the model is empty",
        ),
        (
            ModelSettings {
                base_url: Some("ftp://127.0.0.1/v1".to_owned()),
                ..local.clone()
            },
            "must start with http:// or https://",
        ),
    ] {
        engine
            .handle(Op::SaveModelSettings {
                settings: bad,
                api_key: None,
            })
            .await;
        let problem = next(&mut events, saved).await.unwrap();
        assert!(problem.contains(reason), "{problem}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), after);
    }

    // A file that is not TOML is left as it is.
    std::fs::write(&path, "provider = [unclosed\n").unwrap();
    engine
        .handle(Op::SaveModelSettings {
            settings: local,
            api_key: None,
        })
        .await;
    let problem = next(&mut events, saved).await.unwrap();
    assert!(problem.contains("not valid TOML"), "{problem}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "provider = [unclosed\n"
    );
}
