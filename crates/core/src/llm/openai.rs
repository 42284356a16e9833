//! OpenAI-compatible Chat Completions (`POST {base}/chat/completions`, `stream: true`), as
//! spoken by OpenAI, Ollama, llama.cpp server, LM Studio, vLLM and OpenRouter.
//!
//! Tool calls stream as `delta.tool_calls` pieces merged by `index`. Servers differ, and all of
//! these are tolerated: missing `index` (matched by id, else appended), missing ids (one is
//! made up), the name repeated in every piece, arguments sent as an object instead of a string,
//! a whole call in one chunk, `finish_reason` of `stop`/`eos` while tool calls are present, and
//! streams that end without `[DONE]` after a finish reason.

use super::{
    Encoded, LlmError, Message, ModelProvider, ModelReply, ModelRequest, StopReason, ToolCall,
    encoded_messages, push_json, push_tools, read_events, send,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const PROVIDER: &str = "openai";

pub struct OpenAiCompatible {
    client: reqwest::Client,
    url: String,
    model: String,
    /// None for local servers that need no key.
    api_key: Option<String>,
}

impl OpenAiCompatible {
    pub fn new(
        client: reqwest::Client,
        base_url: String,
        model: String,
        api_key: Option<String>,
    ) -> Self {
        OpenAiCompatible {
            client,
            url: format!("{}/chat/completions", base_url.trim_end_matches('/')),
            model,
            api_key,
        }
    }
}

/// One message as Chat Completions wants it.
fn encode(message: &Message) -> Encoded {
    let value = match message {
        Message::User { text } => json!({"role": "user", "content": text}),
        Message::Assistant { text, tool_calls } => {
            let mut value = json!({"role": "assistant", "content": text});
            if !tool_calls.is_empty() {
                value["tool_calls"] = tool_calls
                    .iter()
                    .map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        })
                    })
                    .collect();
            }
            value
        }
        Message::Tool {
            call_id, content, ..
        } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
    };
    Encoded {
        role: "",
        json: value.to_string(),
    }
}

/// The name of the reply-length field: OpenAI's reasoning models (o1, o3, o4, GPT-5) refuse
/// `max_tokens` and want `max_completion_tokens`; other servers (Ollama, llama.cpp, vLLM) know
/// only `max_tokens`.
pub fn max_tokens_field(model: &str) -> &'static str {
    let model = model.to_ascii_lowercase();
    let bare = model.rsplit('/').next().unwrap_or(&model);
    if ["o1", "o3", "o4", "gpt-5"].iter().any(|family| {
        bare == *family
            || bare.starts_with(&format!("{family}-"))
            || bare.starts_with(&format!("{family}."))
    }) {
        "max_completion_tokens"
    } else {
        "max_tokens"
    }
}

/// The request body (JSON) for `request`.
pub fn body(model: &str, request: &ModelRequest<'_>) -> Vec<u8> {
    let messages = encoded_messages(request, PROVIDER, encode);
    let size = messages.iter().map(|m| m.json.len() + 1).sum::<usize>() + request.system.len();
    let mut out = Vec::with_capacity(size + 16 * 1024);
    out.extend_from_slice(b"{\"model\":");
    push_json(&mut out, model);
    out.extend_from_slice(
        format!(
            ",\"stream\":true,\"{}\":{}",
            max_tokens_field(model),
            request.max_output_tokens
        )
        .as_bytes(),
    );
    push_tools(&mut out, request.tools, |tool| {
        json!({
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        })
    });
    out.extend_from_slice(b",\"messages\":[");
    push_json(
        &mut out,
        &json!({"role": "system", "content": request.system}),
    );
    for message in &messages {
        out.push(b',');
        out.extend_from_slice(message.json.as_bytes());
    }
    // The tab's live facts, last: they change each step, and the prefix before them is what
    // servers cache.
    if !request.tab_now.is_empty() {
        out.push(b',');
        push_json(
            &mut out,
            &json!({"role": "user", "content": request.tab_now}),
        );
    }
    out.extend_from_slice(b"]}");
    out
}

/// Builds the reply from stream chunks.
#[derive(Default)]
struct ReplyBuilder {
    text: String,
    /// Calls by stream index.
    calls: Vec<(u64, ToolCall)>,
    finish: Option<String>,
}

impl ReplyBuilder {
    /// Handle one chunk's data; true when the stream is done.
    fn data<F: FnMut(&str) + ?Sized>(
        &mut self,
        data: &str,
        on_text: &mut F,
    ) -> Result<bool, LlmError> {
        let data = data.trim();
        if data == "[DONE]" {
            return Ok(true);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|error| LlmError::Protocol {
            provider: PROVIDER,
            detail: format!("a chunk is not JSON ({error})"),
        })?;
        if let Some(error) = chunk.get("error") {
            let message = error["message"]
                .as_str()
                .unwrap_or("unknown error")
                .to_owned();
            return Err(LlmError::Protocol {
                provider: PROVIDER,
                detail: message,
            });
        }
        let Some(choice) = chunk["choices"].get(0) else {
            return Ok(false); // usage-only chunks
        };
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str()
            && !text.is_empty()
        {
            self.text.push_str(text);
            on_text(text);
        }
        if let Some(pieces) = delta["tool_calls"].as_array() {
            for piece in pieces {
                self.tool_piece(piece);
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish = Some(reason.to_owned());
        }
        Ok(false)
    }

    fn tool_piece(&mut self, piece: &Value) {
        let id = piece["id"].as_str().filter(|id| !id.is_empty());
        let slot = match (piece["index"].as_u64(), id) {
            (Some(index), _) => self.calls.iter().position(|(at, _)| *at == index),
            (None, Some(id)) => self.calls.iter().position(|(_, call)| call.id == id),
            // Neither index nor id: a continuation of the last call.
            (None, None) => self.calls.len().checked_sub(1),
        };
        let slot = match slot {
            Some(slot) => slot,
            None => {
                let index = piece["index"].as_u64().unwrap_or(self.calls.len() as u64);
                self.calls.push((
                    index,
                    ToolCall {
                        id: String::new(),
                        name: String::new(),
                        arguments: String::new(),
                    },
                ));
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[slot].1;
        if let Some(id) = id
            && call.id.is_empty()
        {
            call.id = id.to_owned();
        }
        let function = &piece["function"];
        if let Some(name) = function["name"].as_str()
            && call.name != name
        {
            // Most servers send the name once; some repeat it whole in every piece.
            call.name.push_str(name);
        }
        match &function["arguments"] {
            Value::String(text) => call.arguments.push_str(text),
            Value::Null => {}
            object => call.arguments.push_str(&object.to_string()),
        }
    }

    fn finish(self) -> ModelReply {
        let mut calls = self.calls;
        calls.sort_by_key(|(index, _)| *index);
        let tool_calls: Vec<ToolCall> = calls
            .into_iter()
            .enumerate()
            .map(|(position, (_, mut call))| {
                if call.id.is_empty() {
                    call.id = format!("call_{position}");
                }
                if call.arguments.trim().is_empty() {
                    call.arguments = "{}".to_owned();
                }
                call
            })
            .collect();
        let stop = match self.finish.as_deref() {
            _ if !tool_calls.is_empty() => StopReason::ToolUse,
            Some("stop" | "eos" | "end_turn") | None => StopReason::EndTurn,
            Some("length") => StopReason::MaxTokens,
            Some(other) => StopReason::Other(other.to_owned()),
        };
        ModelReply {
            text: self.text,
            tool_calls,
            stop,
        }
    }
}

#[async_trait::async_trait]
impl ModelProvider for OpenAiCompatible {
    fn name(&self) -> &'static str {
        PROVIDER
    }

    async fn complete(
        &self,
        request: &ModelRequest<'_>,
        cancel: &CancellationToken,
        on_text: &mut (dyn for<'t> FnMut(&'t str) + Send),
    ) -> Result<ModelReply, LlmError> {
        let mut builder = self
            .client
            .post(&self.url)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body(&self.model, request));
        if let Some(key) = &self.api_key {
            builder = builder.bearer_auth(key);
        }
        let response = send(PROVIDER, builder, &self.url, &self.model, cancel).await?;
        let mut reply = ReplyBuilder::default();
        let done = read_events(PROVIDER, &self.url, response, cancel, &mut |event| {
            reply.data(&event.data, on_text)
        })
        .await?;
        if !done && reply.finish.is_none() {
            return Err(LlmError::Network {
                provider: PROVIDER,
                url: self.url.clone(),
                detail: "the connection closed in the middle of the reply".to_owned(),
            });
        }
        Ok(reply.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn reasoning_models_get_max_completion_tokens() {
        for model in [
            "o1",
            "o3-mini",
            "o4-mini",
            "gpt-5",
            "gpt-5-mini",
            "gpt-5.1",
            "openai/gpt-5",
        ] {
            assert_eq!(max_tokens_field(model), "max_completion_tokens", "{model}");
        }
        for model in [
            "gpt-4o",
            "gpt-4.1",
            "llama3.1:8b",
            "qwen2.5-coder",
            "o1x",
            "mistral",
        ] {
            assert_eq!(max_tokens_field(model), "max_tokens", "{model}");
        }
    }

    fn replay(chunks: &[&str]) -> ModelReply {
        let mut builder = ReplyBuilder::default();
        for chunk in chunks {
            builder.data(chunk, &mut |_| {}).unwrap();
        }
        builder.finish()
    }

    #[test]
    fn pieces_merge_by_index() {
        let reply = replay(&[
            r#"{"choices":[{"delta":{"content":"Hi"}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"read_screen","arguments":""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"run_command","arguments":"{\"com"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"mand\":\"ls\"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
        ]);
        assert_eq!(reply.text, "Hi");
        assert_eq!(reply.stop, StopReason::ToolUse);
        assert_eq!(
            reply.tool_calls,
            vec![
                ToolCall {
                    id: "a".into(),
                    name: "run_command".into(),
                    arguments: r#"{"command":"ls"}"#.into()
                },
                ToolCall {
                    id: "b".into(),
                    name: "read_screen".into(),
                    arguments: "{}".into()
                },
            ]
        );
    }

    #[test]
    fn quirks_are_tolerated() {
        // No ids, no index, name repeated, arguments as an object, finish_reason "stop".
        let reply = replay(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"run_command","arguments":{"command":"uptime"}}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"run_command"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"total_tokens":5}}"#,
        ]);
        assert_eq!(reply.stop, StopReason::ToolUse);
        assert_eq!(
            reply.tool_calls,
            vec![ToolCall {
                id: "call_0".into(),
                name: "run_command".into(),
                arguments: r#"{"command":"uptime"}"#.into()
            }]
        );
        assert_eq!(
            replay(&[r#"{"choices":[{"delta":{"content":"x"},"finish_reason":"length"}]}"#]).stop,
            StopReason::MaxTokens
        );
    }
}
