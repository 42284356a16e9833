//! `Op::ReplaceHostKey`: replacing the key `known_hosts` holds for a server whose key changed,
//! deliberately. The engine fetches the server's key again, and replaces the stored one only
//! when the user typed that key's fingerprint (whole, or its last 8 characters) and
//! `known_hosts` really holds a different key of that type for the host. Every attempt is an
//! audit line. It must never replace a key on a click alone, nor trust a key the user did not
//! confirm.

use super::{CONNECT_TIMEOUT, Inner, UserAction};
use crate::connect::known_hosts::{self, HostKeyStatus};
use crate::ssh::{SshOptions, SshTarget};
use kaiport_protocol::*;

/// How many of the fingerprint's last characters a person types to confirm.
pub const CONFIRM_CHARS: usize = 8;

/// Whether `typed` confirms `fingerprint`: the whole of it, or its last [`CONFIRM_CHARS`]
/// characters, surrounding spaces ignored (fingerprints are case-sensitive base64).
pub fn confirms(typed: &str, fingerprint: &str) -> bool {
    let typed = typed.trim();
    if typed == fingerprint {
        return true;
    }
    let tail: String = {
        let chars: Vec<char> = fingerprint.chars().collect();
        chars[chars.len().saturating_sub(CONFIRM_CHARS)..]
            .iter()
            .collect()
    };
    typed.chars().count() == CONFIRM_CHARS && typed == tail
}

impl Inner {
    pub(super) async fn replace_host_key(
        &self,
        tab: Option<TabId>,
        host: String,
        port: u16,
        confirmation: String,
    ) {
        let path = self.config.known_hosts.clone();
        let outcome = self.try_replace(&host, port, &confirmation).await;
        let connection = tab
            .as_deref()
            .and_then(|tab| self.tab(tab))
            .map(|found| found.connection.clone())
            .unwrap_or_else(|| format!("ssh://{host}:{port}"));
        let (status, error, args) = match &outcome {
            Ok((fingerprint, old, _)) => (
                ToolStatus::Ok,
                None,
                serde_json::json!({"host": &host, "port": port, "fingerprint": fingerprint,
                    "old_fingerprint": old, "known_hosts": path.display().to_string()}),
            ),
            Err((status, message)) => (
                *status,
                Some(message.clone()),
                serde_json::json!({"host": &host, "port": port,
                    "known_hosts": path.display().to_string()}),
            ),
        };
        self.audit_user_action(UserAction {
            tab: tab.clone(),
            connection,
            tool: "replace_host_key",
            call: format!("user-host-key-{host}:{port}"),
            args,
            status,
            error,
        });
        match outcome {
            Ok((fingerprint, old_fingerprint, line)) => self.emit(Event::HostKeyReplaced {
                tab,
                host,
                port,
                fingerprint,
                old_fingerprint,
                known_hosts: path.display().to_string(),
                line: u32::try_from(line).unwrap_or(u32::MAX),
            }),
            Err((_, message)) => self.emit(Event::Error { tab, message }),
        }
    }

    /// The new fingerprint, the old one and the new key's line; else how it was refused.
    async fn try_replace(
        &self,
        host: &str,
        port: u16,
        confirmation: &str,
    ) -> Result<(String, String, usize), (ToolStatus, String)> {
        let error = |message: String| (ToolStatus::Error, message);
        let path = self.config.known_hosts.clone();
        let mut options = SshOptions::with_known_hosts(path.clone());
        options.connect_timeout = CONNECT_TIMEOUT;
        let target = SshTarget::new(host, port, "");
        let key = crate::ssh::fetch_host_key(&target, &options)
            .await
            .map_err(|e| error(format!("nothing was replaced: {e}")))?;
        let fingerprint = known_hosts::fingerprint_sha256(&key);
        if !confirms(confirmation, &fingerprint) {
            return Err((
                ToolStatus::Denied,
                format!(
                    "nothing was replaced: what was typed is not the server's fingerprint \
                     {fingerprint} (type it whole, or its last {CONFIRM_CHARS} characters)"
                ),
            ));
        }
        let status = known_hosts::check(&path, host, port, &key)
            .map_err(|e| error(format!("nothing was replaced: {e}")))?;
        let line = match status {
            HostKeyStatus::Changed { line, .. } => line,
            HostKeyStatus::Known { .. } => {
                return Err(error(format!(
                    "nothing was replaced: {} already holds this key for {host}:{port}",
                    path.display()
                )));
            }
            HostKeyStatus::Unknown => {
                return Err(error(format!(
                    "nothing was replaced: {} holds no key of this type for {host}:{port}; \
                     connect and accept the key instead",
                    path.display()
                )));
            }
            HostKeyStatus::Revoked { line } => {
                return Err((
                    ToolStatus::Denied,
                    format!(
                        "nothing was replaced: line {line} of {} marks this key @revoked",
                        path.display()
                    ),
                ));
            }
        };
        let old = known_hosts::key_on_line(&path, line)
            .map(|old| known_hosts::fingerprint_sha256(&old))
            .unwrap_or_default();
        let replaced = known_hosts::replace(&path, host, port, &key)
            .map_err(|e| error(format!("nothing was replaced: {e}")))?;
        tracing::info!(host, port, %fingerprint, "stored host key replaced by the user");
        Ok((fingerprint, old, replaced.line))
    }
}

#[cfg(test)]
mod tests {
    use super::confirms;

    #[test]
    fn only_the_whole_fingerprint_or_its_last_eight_characters_confirm() {
        let fp = "SHA256:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG";
        assert!(confirms(fp, fp));
        assert!(confirms("9ABCDEFG", fp));
        assert!(confirms(" 9ABCDEFG\n", fp));
        assert!(!confirms("9abcdefg", fp));
        assert!(!confirms("ABCDEFG", fp));
        assert!(!confirms("89ABCDEFG", fp));
        assert!(!confirms("", fp));
        assert!(!confirms("SHA256:abc", fp));
    }
}
