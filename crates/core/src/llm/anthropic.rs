//! The Anthropic Messages API (`POST {base}/v1/messages`, `stream: true`): text arrives as
//! `content_block_delta`/`text_delta`, tool calls as a `tool_use` block whose input is streamed
//! in `input_json_delta` pieces, and the stop reason in `message_delta`.

use super::sse::SseEvent;
use super::{
    Encoded, LlmError, Message, ModelProvider, ModelReply, ModelRequest, StopReason, ToolCall,
    encoded_messages, push_json, read_events, send,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const PROVIDER: &str = "anthropic";
pub(super) const API_VERSION: &str = "2023-06-01";

/// A prompt-cache breakpoint with the default lifetime.
fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

pub struct Anthropic {
    client: reqwest::Client,
    url: String,
    model: String,
    api_key: String,
}

impl Anthropic {
    pub fn new(client: reqwest::Client, base_url: String, model: String, api_key: String) -> Self {
        Anthropic {
            client,
            url: format!("{}/v1/messages", base_url.trim_end_matches('/')),
            model,
            api_key,
        }
    }
}

/// The request body for `request`.
pub fn body(model: &str, request: &ModelRequest<'_>) -> Vec<u8> {
    let messages = encoded_messages(request, PROVIDER, encode);
    let size = messages.iter().map(|m| m.json.len() + 32).sum::<usize>() + request.system.len();
    let mut out = Vec::with_capacity(size + 16 * 1024);
    out.extend_from_slice(b"{\"model\":");
    push_json(&mut out, model);
    out.extend_from_slice(
        format!(
            ",\"max_tokens\":{},\"stream\":true",
            request.max_output_tokens
        )
        .as_bytes(),
    );
    // Cache breakpoints (the prompt cache keeps the prefix up to each): the tool definitions,
    // the system prompt, and the conversation so far (its last block). The budget elides old
    // results in batches, so this prefix stays byte-identical from one step to the next.
    out.extend_from_slice(b",\"system\":");
    if request.system.is_empty() {
        push_json(&mut out, request.system);
    } else {
        push_json(
            &mut out,
            &json!([{"type": "text", "text": request.system, "cache_control": ephemeral()}]),
        );
    }
    let last = request.tools.len().saturating_sub(1);
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .enumerate()
            .map(|(index, tool)| {
                let mut wire = json!({
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": tool.parameters,
                });
                if index == last {
                    wire["cache_control"] = ephemeral();
                }
                wire
            })
            .collect();
        out.extend_from_slice(b",\"tools\":");
        push_json(&mut out, &tools);
    }
    // Messages alternate user/assistant; tool results are user messages. Neighbours of the
    // same role are merged, as the API requires.
    out.extend_from_slice(b",\"messages\":[");
    let mut role = None;
    for (index, message) in messages.iter().enumerate() {
        if role == Some(message.role) {
            out.push(b',');
        } else {
            if role.is_some() {
                out.extend_from_slice(b"]},");
            }
            out.extend_from_slice(b"{\"role\":");
            push_json(&mut out, message.role);
            out.extend_from_slice(b",\"content\":[");
            role = Some(message.role);
        }
        let json = message.json.as_bytes();
        match json.split_last() {
            // The last block of the last message (each block is a JSON object) is a
            // breakpoint; the cached encoding is left as it is.
            Some((b'}', open)) if index + 1 == messages.len() => {
                out.extend_from_slice(open);
                out.extend_from_slice(b",\"cache_control\":");
                push_json(&mut out, &ephemeral());
                out.push(b'}');
            }
            _ => out.extend_from_slice(json),
        }
    }
    // The tab's live facts come last, after the breakpoint: they change each step, and
    // everything before them stays cached. They join the newest user message (results are
    // user messages), or start one.
    if !request.tab_now.is_empty() {
        match role {
            Some("user") => out.push(b','),
            Some(_) => out.extend_from_slice(b"]},{\"role\":\"user\",\"content\":["),
            None => out.extend_from_slice(b"{\"role\":\"user\",\"content\":["),
        }
        push_json(&mut out, &json!({"type": "text", "text": request.tab_now}));
        role = Some("user");
    }
    if role.is_some() {
        out.extend_from_slice(b"]}");
    }
    out.extend_from_slice(b"]}");
    out
}

/// One message's content blocks, comma-separated, and its role.
fn encode(message: &Message) -> Encoded {
    let (role, blocks) = match message {
        Message::User { text } => ("user", vec![json!({"type": "text", "text": text})]),
        Message::Assistant { text, tool_calls } => {
            let mut blocks = Vec::new();
            if !text.is_empty() {
                blocks.push(json!({"type": "text", "text": text}));
            }
            for call in tool_calls {
                // The API wants an object; malformed arguments were already answered with
                // an error result, so an empty object stands in for them.
                let input = match serde_json::from_str::<Value>(&call.arguments) {
                    Ok(value @ Value::Object(_)) => value,
                    _ => json!({}),
                };
                blocks.push(json!({
                    "type": "tool_use", "id": call.id, "name": call.name, "input": input,
                }));
            }
            if blocks.is_empty() {
                blocks.push(json!({"type": "text", "text": "(no reply)"}));
            }
            ("assistant", blocks)
        }
        Message::Tool {
            call_id,
            content,
            is_error,
            ..
        } => (
            "user",
            vec![json!({
                "type": "tool_result", "tool_use_id": call_id, "content": content,
                "is_error": is_error,
            })],
        ),
    };
    let json = blocks
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(",");
    Encoded { role, json }
}

/// Builds the reply from stream events.
#[derive(Default)]
struct ReplyBuilder {
    text: String,
    /// Tool-use blocks by content index: id, name, input JSON so far.
    tools: Vec<(u64, ToolCall)>,
    stop: Option<StopReason>,
}

impl ReplyBuilder {
    /// Handle one event; true when the message is complete.
    fn event<F: FnMut(&str) + ?Sized>(
        &mut self,
        event: &SseEvent,
        on_text: &mut F,
    ) -> Result<bool, LlmError> {
        let protocol = |detail: String| LlmError::Protocol {
            provider: PROVIDER,
            detail,
        };
        let data: Value = serde_json::from_str(&event.data)
            .map_err(|error| protocol(format!("an event is not JSON ({error})")))?;
        let kind = data["type"].as_str().unwrap_or(event.event.as_str());
        match kind {
            "content_block_start" => {
                let block = &data["content_block"];
                if block["type"] == "tool_use" {
                    let index = data["index"].as_u64().unwrap_or(self.tools.len() as u64);
                    // Some servers send the whole input here instead of deltas.
                    let arguments = match &block["input"] {
                        Value::Object(map) if !map.is_empty() => block["input"].to_string(),
                        _ => String::new(),
                    };
                    self.tools.push((
                        index,
                        ToolCall {
                            id: block["id"].as_str().unwrap_or_default().to_owned(),
                            name: block["name"].as_str().unwrap_or_default().to_owned(),
                            arguments,
                        },
                    ));
                } else if let Some(text) = block["text"].as_str()
                    && !text.is_empty()
                {
                    self.text.push_str(text);
                    on_text(text);
                }
            }
            "content_block_delta" => {
                let delta = &data["delta"];
                match delta["type"].as_str() {
                    Some("text_delta") => {
                        let text = delta["text"].as_str().unwrap_or_default();
                        self.text.push_str(text);
                        on_text(text);
                    }
                    Some("input_json_delta") => {
                        let index = data["index"].as_u64();
                        let partial = delta["partial_json"].as_str().unwrap_or_default();
                        let target = self
                            .tools
                            .iter_mut()
                            .rev()
                            .find(|(at, _)| Some(*at) == index || index.is_none());
                        match target {
                            Some((_, call)) => call.arguments.push_str(partial),
                            None => {
                                return Err(protocol(
                                    "tool input for a block that was never started".to_owned(),
                                ));
                            }
                        }
                    }
                    // thinking, signatures, citations: not shown.
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.stop = Some(match reason {
                        "end_turn" | "stop_sequence" => StopReason::EndTurn,
                        "tool_use" => StopReason::ToolUse,
                        "max_tokens" => StopReason::MaxTokens,
                        other => StopReason::Other(other.to_owned()),
                    });
                }
            }
            "message_stop" => return Ok(true),
            "error" => {
                let message = data["error"]["message"].as_str().unwrap_or("unknown error");
                let kind = data["error"]["type"].as_str().unwrap_or("error");
                // overloaded_error mid-stream is the API's 529: worth a retry.
                return Err(if kind == "overloaded_error" || kind == "api_error" {
                    LlmError::Http {
                        provider: PROVIDER,
                        status: 529,
                        detail: message.to_owned(),
                        retry_after: None,
                    }
                } else {
                    protocol(format!("{kind}: {message}"))
                });
            }
            // message_start, content_block_stop, ping
            _ => {}
        }
        Ok(false)
    }

    fn finish(self) -> ModelReply {
        let mut tools = self.tools;
        tools.sort_by_key(|(index, _)| *index);
        let tool_calls: Vec<ToolCall> = tools.into_iter().map(|(_, call)| call).collect();
        let stop = match self.stop {
            Some(stop) => stop,
            None if tool_calls.is_empty() => StopReason::EndTurn,
            None => StopReason::ToolUse,
        };
        ModelReply {
            text: self.text,
            tool_calls,
            stop,
        }
    }
}

#[async_trait::async_trait]
impl ModelProvider for Anthropic {
    fn name(&self) -> &'static str {
        PROVIDER
    }

    async fn complete(
        &self,
        request: &ModelRequest<'_>,
        cancel: &CancellationToken,
        on_text: &mut (dyn for<'t> FnMut(&'t str) + Send),
    ) -> Result<ModelReply, LlmError> {
        let builder = self
            .client
            .post(&self.url)
            .header("x-api-key", &self.api_key)
            .header("anthropic-version", API_VERSION)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body(&self.model, request));
        let response = send(PROVIDER, builder, &self.url, &self.model, cancel).await?;
        let mut reply = ReplyBuilder::default();
        let complete = read_events(PROVIDER, &self.url, response, cancel, &mut |event| {
            reply.event(&event, on_text)
        })
        .await?;
        if !complete {
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
    use crate::llm::ToolSchema;
    use pretty_assertions::assert_eq;

    #[test]
    fn tool_results_merge_into_one_user_message() {
        let conversation = [
            Message::User { text: "hi".into() },
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![
                    ToolCall {
                        id: "a".into(),
                        name: "run_command".into(),
                        arguments: r#"{"command":"ls"}"#.into(),
                    },
                    ToolCall {
                        id: "b".into(),
                        name: "read_screen".into(),
                        arguments: "{oops".into(),
                    },
                ],
            },
            Message::Tool {
                call_id: "a".into(),
                name: "run_command".into(),
                content: "ok".into(),
                is_error: false,
            },
            Message::Tool {
                call_id: "b".into(),
                name: "read_screen".into(),
                content: "bad".into(),
                is_error: true,
            },
        ];
        let tools = [ToolSchema {
            name: "run_command".into(),
            description: "d".into(),
            parameters: json!({"type": "object"}),
        }];
        let request = ModelRequest {
            system: "sys",
            messages: &conversation,
            tools: &tools,
            max_output_tokens: 100,
            tab_now: "",
            wire: None,
        };
        let body: Value = serde_json::from_slice(&body("m", &request)).unwrap();
        assert_eq!(body["messages"].as_array().unwrap().len(), 3);
        assert_eq!(body["messages"][1]["content"][1]["input"], json!({}));
        assert_eq!(
            body["messages"][2]["content"],
            json!([
                {"type": "tool_result", "tool_use_id": "a", "content": "ok", "is_error": false},
                {"type": "tool_result", "tool_use_id": "b", "content": "bad", "is_error": true,
                 "cache_control": {"type": "ephemeral"}},
            ])
        );
        assert_eq!(body["tools"][0]["input_schema"], json!({"type": "object"}));
        // Cache breakpoints: the last tool, the system prompt, the conversation's last block.
        assert_eq!(
            body["tools"][0]["cache_control"],
            json!({"type": "ephemeral"})
        );
        assert_eq!(
            body["system"],
            json!([{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}])
        );
    }

    #[test]
    fn streamed_tool_input_is_joined() {
        let mut builder = ReplyBuilder::default();
        let mut seen = String::new();
        let events = [
            r#"{"type":"message_start","message":{}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"run_command","input":{}}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"comm"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"and\":\"ls\"}"}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"}}"#,
        ];
        for data in events {
            let event = SseEvent {
                event: String::new(),
                data: data.to_owned(),
            };
            assert!(!builder.event(&event, &mut |t| seen.push_str(t)).unwrap());
        }
        let stop = SseEvent {
            event: "message_stop".into(),
            data: r#"{"type":"message_stop"}"#.into(),
        };
        assert!(builder.event(&stop, &mut |_| {}).unwrap());
        assert_eq!(seen, "Hello");
        assert_eq!(
            builder.finish(),
            ModelReply {
                text: "Hello".into(),
                tool_calls: vec![ToolCall {
                    id: "t1".into(),
                    name: "run_command".into(),
                    arguments: r#"{"command":"ls"}"#.into(),
                }],
                stop: StopReason::ToolUse,
            }
        );
    }
}
