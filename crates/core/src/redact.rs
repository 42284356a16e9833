//! Secrets kept out of every log line, whatever crate writes it. A password, passphrase, API key
//! or storage secret is remembered here the moment kaiport holds it (keychain, environment,
//! prompt, or the open call that hands it to a transport), and the log writer of every front end
//! passes each formatted line through [`scrub`] before it leaves the process. Dependencies log
//! at `debug` and `trace` what kaiport does not control (a credential provider's `Debug`, a
//! request with its headers); scrubbing at the boundary covers them all.
//!
//! This module must never log or print what it holds, and never hand it out: the only way out
//! is a line with every secret replaced.

use std::borrow::Cow;
use std::sync::RwLock;

/// What a secret becomes in a log line.
pub const MASK: &str = "[secret]";
/// Shorter values are not secrets worth masking (and would mask ordinary words).
const MIN_LEN: usize = 4;
/// Most secrets remembered; a process never holds this many, so a flood is not kept.
const MAX_SECRETS: usize = 256;

static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Remembers `secret` so that no log line shows it.
pub fn remember(secret: &str) {
    let secret = secret.trim_end_matches(['\r', '\n']);
    if secret.len() < MIN_LEN {
        return;
    }
    let mut secrets = SECRETS
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if secrets.iter().any(|known| known == secret) || secrets.len() >= MAX_SECRETS {
        return;
    }
    secrets.push(secret.to_owned());
    // Longest first, so a secret that contains another is masked whole.
    secrets.sort_by_key(|known| std::cmp::Reverse(known.len()));
}

/// `text` with every remembered secret replaced by [`MASK`], also where a log shows it
/// percent-encoded or escaped as `Debug` does.
pub fn scrub(text: &str) -> Cow<'_, str> {
    let secrets = SECRETS
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut out = Cow::Borrowed(text);
    for secret in secrets.iter() {
        for form in forms(secret) {
            if out.contains(form.as_str()) {
                out = Cow::Owned(out.replace(form.as_str(), MASK));
            }
        }
    }
    out
}

/// The spellings of a secret a log line may carry.
fn forms(secret: &str) -> Vec<String> {
    let mut forms = vec![secret.to_owned()];
    let encoded: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    if encoded != secret {
        forms.push(encoded);
    }
    let escaped = secret.escape_debug().to_string();
    if escaped != secret {
        forms.push(escaped);
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_secrets_never_reach_a_line() {
        remember("s3cr3t-Key/with+chars");
        remember("abc");
        let line = "provider: Credential { secret_access_key: \"s3cr3t-Key/with+chars\" } \
                    url=https://x/?sig=s3cr3t-Key%2Fwith%2Bchars abc";
        let scrubbed = scrub(line);
        assert!(!scrubbed.contains("s3cr3t"), "{scrubbed}");
        assert_eq!(scrubbed.matches(MASK).count(), 2, "{scrubbed}");
        // Too short to be a secret worth masking: ordinary words stay.
        assert!(scrubbed.ends_with(" abc"));
        assert_eq!(scrub("nothing here"), "nothing here");
    }
}
