//! The context budget: keeps a long conversation inside the model's context window by eliding
//! the oldest tool results (replaced by a marker the model can read), newest results kept whole.
//!
//! Token counts are estimated (4 bytes a token, which overestimates for English and code), so
//! the budget keeps a margin; the estimate never has to be exact, only safe.

use crate::llm::Message;
use kaiport_protocol::ProviderKind;

/// The newest tool results that are never elided: the model is working with them.
pub const KEEP_NEWEST_RESULTS: usize = 2;
/// Share of (window − reply) the conversation may fill before results are elided.
const FILL: f64 = 0.85;

/// The context window assumed for a model when the settings give none.
pub fn default_context_tokens(provider: ProviderKind, model: &str) -> u32 {
    let model = model.to_ascii_lowercase();
    match provider {
        ProviderKind::Anthropic => 200_000,
        ProviderKind::Openai if model.starts_with("gpt-4.1") || model.starts_with("gpt-5") => {
            400_000
        }
        ProviderKind::Openai
            if model.starts_with("gpt-4o")
                || model.starts_with("o1")
                || model.starts_with("o3")
                || model.starts_with("o4") =>
        {
            128_000
        }
        // Local servers (Ollama, llama.cpp, LM Studio) often run with small windows.
        ProviderKind::Openai => 32_768,
    }
}

/// Estimated tokens of `text`.
pub fn estimate(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// Estimated tokens of one message.
pub fn message_tokens(message: &Message) -> usize {
    // A few tokens of framing per message and per call.
    const OVERHEAD: usize = 8;
    match message {
        Message::User { text } => estimate(text) + OVERHEAD,
        Message::Assistant { text, tool_calls } => {
            estimate(text)
                + tool_calls
                    .iter()
                    .map(|call| estimate(&call.name) + estimate(&call.arguments) + OVERHEAD)
                    .sum::<usize>()
                + OVERHEAD
        }
        Message::Tool { content, .. } => estimate(content) + OVERHEAD,
    }
}

/// The tokens the conversation may use: the window minus the reply, with a margin.
pub fn conversation_budget(context_tokens: u32, max_output_tokens: u32) -> usize {
    let room = context_tokens.saturating_sub(max_output_tokens);
    (f64::from(room) * FILL) as usize
}

/// The marker that replaces an elided result.
pub fn elided_marker(tool: &str, chars: usize) -> String {
    format!(
        "[kaiport removed this {tool} result ({chars} characters) to keep the conversation within the \
         model's context budget; call the tool again if you still need it]"
    )
}

/// Whether a tool result's content is the marker of an elided one.
pub fn is_elided(content: &str) -> bool {
    content.starts_with(ELIDED_PREFIX)
}

const ELIDED_PREFIX: &str = "[kaiport removed this ";

/// Elide the oldest tool results until `fixed` (system prompt, tool schemas) plus the
/// messages fit in `budget`. Returns the positions of the results elided now.
pub fn fit(messages: &mut [Message], fixed: usize, budget: usize) -> Vec<usize> {
    let mut total = fixed + messages.iter().map(message_tokens).sum::<usize>();
    let mut elided = Vec::new();
    if total <= budget {
        return elided;
    }
    let results: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| matches!(message, Message::Tool { .. }))
        .map(|(index, _)| index)
        .collect();
    let elidable = results.len().saturating_sub(KEEP_NEWEST_RESULTS);
    for &index in &results[..elidable] {
        if total <= budget {
            break;
        }
        if let Message::Tool { name, content, .. } = &mut messages[index] {
            if is_elided(content) {
                continue;
            }
            let before = estimate(content);
            *content = elided_marker(name, content.chars().count());
            total = total - before + estimate(content);
            elided.push(index);
        }
    }
    elided
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn result(name: &str, size: usize) -> Message {
        Message::Tool {
            call_id: name.to_owned(),
            name: "run_command".to_owned(),
            content: "x".repeat(size),
            is_error: false,
        }
    }

    #[test]
    fn oldest_results_go_first_and_the_newest_stay() {
        let mut messages = vec![
            Message::User { text: "go".into() },
            result("a", 4000),
            result("b", 4000),
            result("c", 4000),
            result("d", 4000),
        ];
        assert_eq!(fit(&mut messages, 100, 100_000), Vec::<usize>::new());
        // Room for about three results: only the oldest goes.
        assert_eq!(fit(&mut messages, 100, 3200), vec![1]);
        let Message::Tool { content, .. } = &messages[1] else {
            panic!()
        };
        assert!(content.starts_with("[kaiport removed this run_command result (4000 characters)"));
        // Far too little room: everything but the newest two goes, once.
        assert_eq!(fit(&mut messages, 100, 10), vec![2]);
        assert_eq!(fit(&mut messages, 100, 10), Vec::<usize>::new());
        let Message::Tool { content, .. } = &messages[4] else {
            panic!()
        };
        assert_eq!(content.len(), 4000);
    }

    #[test]
    fn defaults_follow_provider_and_model() {
        assert_eq!(
            default_context_tokens(ProviderKind::Anthropic, "claude-x"),
            200_000
        );
        assert_eq!(
            default_context_tokens(ProviderKind::Openai, "gpt-4o-mini"),
            128_000
        );
        assert_eq!(
            default_context_tokens(ProviderKind::Openai, "llama3.1:8b"),
            32_768
        );
        assert_eq!(conversation_budget(10_000, 2_000), 6_800);
    }
}
