//! open_forward: Pilot proposes a port forward on the tab's SSH connection (`-L`, `-R`, `-D`, in
//! OpenSSH's spelling or as a `ForwardSpec`). Every call shows its card and waits for the user,
//! whatever the mode and the allowed list; plan mode refuses it. Once approved the engine opens
//! it the way the user's own `Op::OpenForward` does (`engine/forwards.rs`), so it shows in the
//! tab's Forwards list, where the user closes it.
//!
//! It must never listen on anything but loopback (a non-loopback bind address is refused before
//! anything is asked), and it never closes or changes a forward.

use super::tool::Tool;
use super::{Action, Prepared, ToolContext};
use crate::forward::{self, spec};
use crate::policy::CallFacts;
use kaiport_protocol::tools::{OpenForwardParams, ToolName};
use kaiport_protocol::{ApprovalPreview, ForwardKind, ForwardSpec, TabKind};

pub(crate) struct OpenForward;

impl Tool for OpenForward {
    const NAME: ToolName = ToolName::OpenForward;
    const DESCRIPTION: &'static str = "Propose a port forward on this tab's SSH connection: `-L 8080:localhost:80` (this \
         computer's 127.0.0.1:8080 to localhost:80 as the server sees it), `-R 9000:localhost:3000` (the \
         server's loopback port 9000 to this computer's localhost:3000) or `-D 1080` (a SOCKS proxy on this \
         computer through the server); give `forward` in that spelling, or `spec` as fields. It listens on \
         loopback only: a bind address that is not loopback is refused. The user approves every forward, in \
         every mode (refused in plan mode), and closes it in the tab's Forwards list; you cannot close or \
         change forwards. Returns where it listens, or why it could not (e.g. the port is in use: try \
         another). `why`: one sentence for the approval card.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal];
    const ALWAYS_ASKS: bool = true;
    type Params = OpenForwardParams;
    type Found = ();

    fn check(params: &OpenForwardParams) -> Result<(), String> {
        forward_of(params).map(drop)
    }

    fn facts(params: &OpenForwardParams, _: Option<&()>) -> CallFacts {
        // `check` ran first; an unreadable forward is judged as it was given.
        let forward = match forward_of(params) {
            Ok(spec) => spec::describe(&spec),
            Err(_) => params.forward.clone().unwrap_or_default(),
        };
        CallFacts::Forward { forward }
    }

    async fn prepare(
        params: OpenForwardParams,
        context: &ToolContext<'_>,
    ) -> Result<Prepared, String> {
        if context.resources.ssh.is_none() {
            return Err(
                "open_forward: port forwards work in SSH terminal tabs only; this tab has no SSH connection"
                    .to_owned(),
            );
        }
        let forward = forward_of(&params)?;
        // The card names the address it binds, default included.
        let mut shown = forward.clone();
        if shown.kind != ForwardKind::Remote && shown.bind_address.is_none() {
            shown.bind_address = Some(forward::DEFAULT_BIND.to_owned());
        }
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: Some(ApprovalPreview::Forward { forward: shown }),
            action: Action::OpenForward(forward),
        })
    }
}

/// The forward the call asks for, read by the engine's one parser (a `spec` is read back from
/// its OpenSSH spelling, so both ways are checked alike), and listening on loopback only.
pub(crate) fn forward_of(params: &OpenForwardParams) -> Result<ForwardSpec, String> {
    let given = match (&params.forward, &params.spec) {
        (Some(text), None) => text.clone(),
        (None, Some(fields)) => spec::describe(fields),
        (Some(_), Some(_)) => {
            return Err("open_forward: give `forward` or `spec`, not both".to_owned());
        }
        (None, None) => {
            return Err(
                "open_forward: name the forward: `forward` as ssh takes it (`-L 8080:localhost:80`), or `spec`"
                    .to_owned(),
            );
        }
    };
    let parsed = spec::parse_flagged(&given).map_err(|error| format!("open_forward: {error}"))?;
    if let Some(bind) = &parsed.bind_address
        && !forward::is_loopback(bind)
    {
        let side = match parsed.kind {
            ForwardKind::Remote => "the server",
            ForwardKind::Local | ForwardKind::Dynamic => "this computer",
        };
        return Err(format!(
            "open_forward: a forward you open listens on loopback only, not on {bind:?}: anything else \
             would be reachable from other computers than {side}. Leave the bind address out (loopback is \
             the default) or use 127.0.0.1; only the user can open a forward on another address, in the \
             tab's Forwards list"
        ));
    }
    Ok(parsed)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    fn read(args: Value) -> Result<ForwardSpec, String> {
        forward_of(&serde_json::from_value(args).unwrap())
    }

    #[test]
    fn both_spellings_read_alike() {
        let flagged = read(json!({"forward": "-L 8080:localhost:80"})).unwrap();
        let fields = read(json!({"spec": {"kind": "local", "listen_port": 8080,
            "to_host": "localhost", "to_port": 80}}))
        .unwrap();
        assert_eq!(flagged, fields);
        assert_eq!(flagged.bind_address, None);
        assert_eq!(
            read(json!({"forward": "-D 127.0.0.1:1080"})).unwrap().kind,
            ForwardKind::Dynamic
        );
        // Fields that make no forward are refused like a bad spelling.
        let dynamic_with_target = read(json!({"spec": {"kind": "dynamic", "listen_port": 1080,
            "to_host": "db", "to_port": 5432}}));
        assert!(
            dynamic_with_target
                .unwrap_err()
                .contains("[BIND_ADDRESS:]PORT"),
            "a SOCKS forward has no destination"
        );
        assert!(read(json!({})).unwrap_err().contains("name the forward"));
        assert!(
            read(json!({"forward": "-D 1080", "spec": {"kind": "dynamic", "listen_port": 1080}}))
                .unwrap_err()
                .contains("not both")
        );
    }

    /// Asks in every mode whatever the allowed list says; refused in plan mode and where `ssh`
    /// is forbidden.
    #[test]
    fn every_mode_asks_and_a_forbidden_rule_still_denies() {
        use crate::policy::{Decision, PolicyContext, decide};
        use kaiport_protocol::{ConnectionSettings, Mode};
        let facts =
            crate::tools::facts_unseen("open_forward", json!({"forward": "-L 8080:localhost:80"}))
                .unwrap();
        let verdict = |mode, settings: &ConnectionSettings| {
            decide(
                &facts,
                PolicyContext::new(mode, settings, TabKind::Terminal),
            )
        };
        let allowing = ConnectionSettings {
            allowed_commands: vec!["ssh".to_owned()],
            ..ConnectionSettings::default()
        };
        for mode in [Mode::Ask, Mode::Autopilot] {
            let decision = verdict(mode, &allowing);
            assert!(
                matches!(&decision, Decision::Ask { reasons, .. }
                    if reasons[0].starts_with("opens the port forward -L 8080:localhost:80")),
                "{mode:?}: {decision:?}"
            );
        }
        let Decision::Deny { reason } = verdict(Mode::Plan, &allowing) else {
            panic!("plan mode let it through")
        };
        assert!(
            reason.starts_with("plan mode: the port forward -L 8080:localhost:80"),
            "{reason}"
        );
        let forbidding = ConnectionSettings {
            forbidden_commands: vec!["ssh".to_owned()],
            ..ConnectionSettings::default()
        };
        let Decision::Deny { reason } = verdict(Mode::Autopilot, &forbidding) else {
            panic!("a forbidden ssh let it through")
        };
        assert!(
            reason.contains("forbidden command on this connection"),
            "{reason}"
        );
    }

    #[test]
    fn only_loopback_is_bound() {
        for given in [
            "-L 0.0.0.0:8080:localhost:80",
            "-D 192.168.1.5:1080",
            "-R *:9000:localhost:3000",
            "-L [::]:8080:localhost:80",
        ] {
            let error = read(json!({ "forward": given })).unwrap_err();
            assert!(error.contains("loopback only"), "{given}: {error}");
        }
        for given in [
            "-L 127.0.0.1:8080:localhost:80",
            "-L [::1]:8080:localhost:80",
            "-R localhost:9000:localhost:3000",
        ] {
            assert!(read(json!({ "forward": given })).is_ok(), "{given}");
        }
    }
}
