//! The context budget: keeps a long conversation inside the model's context window by eliding
//! the oldest tool results, newest results kept whole. An elided result becomes a one-line
//! digest (its header's first line, its size, the first and last line of its server text, still
//! framed) that tells the model to re-run only read-only calls to see it again.
//!
//! Results are elided in batches: once the conversation passes the budget, the oldest go until
//! it is down to [`LOW_WATER`] of it, and then nothing changes until the budget is passed again.
//! Between batches every request starts with the same bytes as the one before, so the
//! providers' prompt caches keep hitting.
//!
//! Token counts are estimated (4 bytes a token, which overestimates for English and code), so
//! the budget keeps a margin; the estimate never has to be exact, only safe.

use crate::llm::Message;
use kaiport_protocol::ProviderKind;
use std::fmt::Write as _;

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

/// Share of the budget a batch of elisions brings the conversation down to.
pub const LOW_WATER: f64 = 0.6;

/// How a digest begins (and how an elided result is known).
const ELIDED_PREFIX: &str = "[elided to save room; re-run only read-only calls to see it again] ";
/// The longest first or last line a digest keeps (characters).
const DIGEST_LINE: usize = 100;

/// The one-line digest that replaces the result `content` (as [`super::results`] renders it).
/// The server text it keeps (the first and last line of the first frame) stays inside a frame
/// with the same nonce; a result without a frame keeps its own next line instead.
pub fn digest(content: &str) -> String {
    let header = content.lines().next().unwrap_or_default().trim();
    let mut out = format!(
        "{ELIDED_PREFIX}{}; {} characters",
        shorten(header, 2 * DIGEST_LINE),
        content.chars().count()
    );
    let (nonce, text) = match framed_text(content) {
        Some((nonce, text)) => (Some(nonce), text),
        None => (None, content.split_once('\n').map_or("", |(_, rest)| rest)),
    };
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| shorten(line, DIGEST_LINE));
    let ends = match (lines.next(), lines.next_back()) {
        (Some(first), Some(last)) => format!("{first} … {last}"),
        (Some(only), None) => only,
        _ => return out,
    };
    match nonce {
        Some(nonce) => {
            let _ = write!(
                out,
                "; first and last line: <untrusted-data nonce=\"{nonce}\" part=\"digest\">{ends}\
                 </untrusted-data nonce=\"{nonce}\">"
            );
        }
        None => {
            let _ = write!(out, "; {ends}");
        }
    }
    out
}

/// The nonce and text of the first untrusted-data frame in `content`. The content of a frame
/// cannot hold its nonce, so the first closing marker with it is the frame's end.
fn framed_text(content: &str) -> Option<(&str, &str)> {
    const OPEN: &str = "<untrusted-data nonce=\"";
    let at = content.find(OPEN)? + OPEN.len();
    let rest = &content[at..];
    let nonce = &rest[..rest.find('"')?];
    let body = &rest[rest.find('\n')? + 1..];
    let close = format!("\n</untrusted-data nonce=\"{nonce}\">");
    Some((nonce, &body[..body.find(&close)?]))
}

/// `line` cut to `max` characters (an ellipsis says so).
fn shorten(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        line.to_owned()
    } else {
        let mut cut: String = line.chars().take(max).collect();
        cut.push('…');
        cut
    }
}

/// Whether a tool result's content is the digest of an elided one.
pub fn is_elided(content: &str) -> bool {
    content.starts_with(ELIDED_PREFIX)
}

/// When `fixed` (system prompt, tool schemas) plus the messages pass `budget`, elide the
/// oldest tool results (never the newest [`KEEP_NEWEST_RESULTS`]) until they are down to
/// [`LOW_WATER`] of it. Returns the positions of the results elided now.
pub fn fit(messages: &mut [Message], fixed: usize, budget: usize) -> Vec<usize> {
    let mut total = fixed + messages.iter().map(message_tokens).sum::<usize>();
    let mut elided = Vec::new();
    if total <= budget {
        return elided;
    }
    let low_water = (budget as f64 * LOW_WATER) as usize;
    let results: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| matches!(message, Message::Tool { .. }))
        .map(|(index, _)| index)
        .collect();
    let elidable = results.len().saturating_sub(KEEP_NEWEST_RESULTS);
    for &index in &results[..elidable] {
        if total <= low_water {
            break;
        }
        if let Message::Tool { content, .. } = &mut messages[index] {
            if is_elided(content) {
                continue;
            }
            let before = estimate(content);
            *content = digest(content);
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
    fn oldest_results_go_first_in_a_batch_and_the_newest_stay() {
        let mut messages = vec![
            Message::User { text: "go".into() },
            result("a", 4000),
            result("b", 4000),
            result("c", 4000),
            result("d", 4000),
        ];
        assert_eq!(fit(&mut messages, 100, 100_000), Vec::<usize>::new());
        // Just over the budget: the batch goes down to the low-water mark (two results), not
        // just under the budget (one).
        assert_eq!(fit(&mut messages, 100, 4000), vec![1, 2]);
        let Message::Tool { content, .. } = &messages[1] else {
            panic!()
        };
        assert!(content.starts_with(
            "[elided to save room; re-run only read-only calls to see it again] xxxx"
        ));
        // Far too little room: everything but the newest two goes, once.
        assert_eq!(fit(&mut messages, 100, 10), Vec::<usize>::new());
        let Message::Tool { content, .. } = &messages[4] else {
            panic!()
        };
        assert_eq!(content.len(), 4000);
    }

    #[test]
    fn a_digest_keeps_header_size_and_framed_ends_on_one_line() {
        let frame = crate::taint::UntrustedFrame::new();
        let nonce = frame.nonce();
        let output: String = (1..=500).map(|n| format!("  line {n}\n")).collect();
        let content = format!(
            "run_command: completed, exit code 0, 2.0 s\n{}",
            frame.frame("output", &output)
        );
        let digest = digest(&content);
        assert_eq!(
            digest,
            format!(
                "[elided to save room; re-run only read-only calls to see it again] run_command: \
                 completed, exit code 0, 2.0 s; {} characters; first and last line: \
                 <untrusted-data nonce=\"{nonce}\" part=\"digest\">line 1 … line 500\
                 </untrusted-data nonce=\"{nonce}\">",
                content.chars().count()
            )
        );
        assert!(!digest.contains('\n'));
        assert!(is_elided(&digest));
        // A result without a frame (a denial) keeps kaiport's own words.
        assert_eq!(
            super::digest("run_command: denied\nthe user denied this call"),
            "[elided to save room; re-run only read-only calls to see it again] run_command: \
             denied; 45 characters; the user denied this call"
        );
    }

    /// Between batches, each step's conversation starts with the previous step's, byte for
    /// byte: what a provider's prompt cache needs.
    #[test]
    fn the_prefix_stays_the_same_until_the_next_batch() {
        let budget = 10_000;
        let mut messages = vec![Message::User { text: "go".into() }];
        let mut previous: Vec<Message> = Vec::new();
        let mut batches = 0;
        for step in 0..40 {
            messages.push(Message::Assistant {
                text: String::new(),
                tool_calls: Vec::new(),
            });
            messages.push(result(&step.to_string(), 3000));
            let elided = fit(&mut messages, 500, budget);
            if elided.is_empty() {
                assert_eq!(messages[..previous.len()], previous[..], "step {step}");
            } else {
                batches += 1;
                assert!(elided.len() > 1, "a batch elides more than one result");
            }
            previous = messages.clone();
        }
        // 40 results of 750 tokens against a 10k budget: a few batches, not one per step.
        assert!((2..=12).contains(&batches), "{batches} batches");
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
