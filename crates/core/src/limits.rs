//! The largest op the engine takes from a front end (a page of `kaiport serve`, the desktop
//! window, the phone): terminal sizes, ids, names, texts, lists and counts. Whatever the pipe
//! already caps, the engine checks here, so every front end shares one guard and a hostile or
//! broken page cannot make the engine allocate without bound (a 65535 x 65535 terminal) or
//! lose what it asked for silently (a tab id too long for a terminal frame).
//!
//! [`check`] refuses an op as a whole, before the engine acts on it, with an error that names
//! the op, the field and the limit. It must never truncate or clamp a value, and never quote
//! one (it may be a typed secret).

use kaiport_protocol::{
    ButtonAction, ConnectionSettings, ModelSettings, Op, PromptAnswer, SaveConnectionSecret,
    TabTarget, ViewButton,
};

/// The most columns or rows a terminal may have: the screen mirror allocates every cell.
pub const MAX_TERMINAL_SIZE: u16 = 1000;
/// A tab id's bytes at most: terminal frames carry it after one length byte.
pub const MAX_TAB_ID_BYTES: usize = 255;
/// A call or prompt id's bytes at most (Pilot's call ids are the tab id and three numbers).
pub const MAX_ID_BYTES: usize = 512;
/// A name's bytes at most: a tool, a saved connection, a host, a user, a model, a variable.
pub const MAX_NAME_BYTES: usize = 1024;
/// A path's, a URL's or a command line's bytes at most.
pub const MAX_PATH_BYTES: usize = 8 * 1024;
/// A secret's bytes at most: a password, a passphrase, an API key.
pub const MAX_SECRET_BYTES: usize = 64 * 1024;
/// A text's bytes at most: a message to Pilot, an answer, a reason.
pub const MAX_TEXT_BYTES: usize = 1024 * 1024;
/// Terminal input's bytes at most in one op (a large paste).
pub const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;
/// A tool call's arguments at most, as JSON (edit_file and write_file carry a file's text).
pub const MAX_ARGS_BYTES: usize = 4 * 1024 * 1024;
/// Entries of a short list at most: key files, jump hosts, local folders, answers, secrets.
pub const MAX_LIST_ITEMS: usize = 64;
/// Entries of a long list at most: hosts to import, a setting's command patterns.
pub const MAX_LONG_LIST_ITEMS: usize = 4096;
/// Audit lines one `read_audit` may ask for.
pub const MAX_AUDIT_LINES: u32 = 10_000;
/// A model's context window, in tokens, at most.
pub const MAX_CONTEXT_TOKENS: u32 = 100_000_000;
/// A model's longest reply, in tokens, at most.
pub const MAX_OUTPUT_TOKENS: u32 = 10_000_000;

/// An op past one of the limits above.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{op} refused: {what} ({actual}{unit}) over the limit of {limit}{unit}")]
pub struct TooLarge {
    /// The op's `type`.
    pub op: &'static str,
    /// The tab the op names, when its id is within the limit (the error belongs there).
    pub tab: Option<String>,
    pub what: &'static str,
    pub actual: u64,
    pub limit: u64,
    /// " bytes", " items" or "" (a number).
    pub unit: &'static str,
}

/// Whether `op` is within every limit; the first limit it passes otherwise.
pub fn check(op: &Op) -> Result<(), TooLarge> {
    let mut c = Checker { op: "", tab: None };
    match op {
        Op::OpenTab {
            tab,
            target,
            cols,
            rows,
            settings,
            mode: _,
        } => {
            c.op("open_tab").tab(tab)?;
            c.size(*cols, *rows)?;
            c.target(target)?;
            if let Some(settings) = settings {
                c.settings(settings)?;
            }
        }
        Op::CloseTab { tab } => c.op("close_tab").tab(tab)?,
        Op::OpenForward { tab, forward } => {
            c.op("open_forward").tab(tab)?;
            c.optional(
                "the bind address",
                forward.bind_address.as_deref(),
                MAX_NAME_BYTES,
            )?;
            c.optional(
                "the destination host",
                forward.to_host.as_deref(),
                MAX_NAME_BYTES,
            )?;
        }
        Op::FleetCancel { run } => {
            c.op("fleet_cancel").text("the run id", run, MAX_ID_BYTES)?;
        }
        Op::CloseForward { tab, id: _ } => c.op("close_forward").tab(tab)?,
        Op::ReplaceHostKey {
            tab,
            host,
            port: _,
            confirmation,
        } => {
            c.op("replace_host_key");
            if let Some(tab) = tab {
                c.tab(tab)?;
            }
            c.text("the host", host, MAX_NAME_BYTES)?;
            c.text("the confirmation", confirmation, MAX_NAME_BYTES)?;
        }
        Op::CheckKeyFile { path } => {
            c.op("check_key_file")
                .text("the path", path, MAX_PATH_BYTES)?
        }
        Op::MoveTab { tab, index: _ } => c.op("move_tab").tab(tab)?,
        Op::ReconnectTab { tab } => c.op("reconnect_tab").tab(tab)?,
        Op::CancelReconnect { tab } => c.op("cancel_reconnect").tab(tab)?,
        Op::ShowTab { tab } => c.op("show_tab").tab(tab)?,
        Op::RememberTabView { tab, view } => {
            c.op("remember_tab_view").tab(tab)?;
            for folder in [&view.folder, &view.local_folder].into_iter().flatten() {
                c.text("the folder", folder, MAX_PATH_BYTES)?;
            }
        }
        Op::TerminalInput { tab, data } => {
            c.op("terminal_input").tab(tab)?;
            c.bytes("the input", data.len(), MAX_INPUT_BYTES)?;
        }
        Op::Resize { tab, cols, rows } => {
            c.op("resize").tab(tab)?;
            c.size(*cols, *rows)?;
        }
        Op::SetMode { tab, mode: _ } => c.op("set_mode").tab(tab)?,
        Op::UpdateSettings { tab, settings } => {
            c.op("update_settings").tab(tab)?;
            c.settings(settings)?;
        }
        Op::RunTool {
            tab,
            call,
            tool,
            args,
        } => {
            c.op("run_tool").tab(tab)?;
            c.text("the call id", call, MAX_ID_BYTES)?;
            c.text("the tool name", tool, MAX_NAME_BYTES)?;
            c.bytes("the arguments", json_bytes(args), MAX_ARGS_BYTES)?;
        }
        Op::Approve {
            call,
            decision: _,
            reason,
            command,
            automatic: _,
        } => {
            c.op("approve").text("the call id", call, MAX_ID_BYTES)?;
            c.optional("the reason", reason.as_deref(), MAX_TEXT_BYTES)?;
            c.optional("the edited command", command.as_deref(), MAX_PATH_BYTES)?;
        }
        Op::AnswerQuestion { call, answer } => {
            c.op("answer_question")
                .text("the call id", call, MAX_ID_BYTES)?;
            c.optional("the answer", answer.as_deref(), MAX_TEXT_BYTES)?;
        }
        Op::AnswerPrompt { prompt, answer } => {
            c.op("answer_prompt")
                .text("the prompt id", prompt, MAX_ID_BYTES)?;
            match answer {
                PromptAnswer::Confirm { accept: _ } | PromptAnswer::Dismissed => {}
                PromptAnswer::Secret { value } => c.text("the secret", value, MAX_SECRET_BYTES)?,
                PromptAnswer::Responses { values } => {
                    c.list("the answers", values, MAX_LIST_ITEMS, MAX_SECRET_BYTES)?;
                }
            }
        }
        Op::Cancel { tab, call } => {
            c.op("cancel").tab(tab)?;
            c.optional("the call id", call.as_deref(), MAX_ID_BYTES)?;
        }
        Op::RetryTransfer {
            tab,
            call,
            new_call,
        } => {
            c.op("retry_transfer").tab(tab)?;
            c.text("the call id", call, MAX_ID_BYTES)?;
            c.text("the new call id", new_call, MAX_ID_BYTES)?;
        }
        Op::ListChanges { tab, call, path } => {
            c.op("list_changes").tab(tab)?;
            c.text("the call id", call, MAX_ID_BYTES)?;
            c.optional("the path", path.as_deref(), MAX_PATH_BYTES)?;
        }
        Op::UndoChange {
            tab,
            call,
            change_id,
        } => {
            c.op("undo_change").tab(tab)?;
            c.text("the call id", call, MAX_ID_BYTES)?;
            c.text("the change id", change_id, MAX_ID_BYTES)?;
        }
        Op::SendMessage { tab, text, model } => {
            c.op("send_message").tab(tab)?;
            c.text("the message", text, MAX_TEXT_BYTES)?;
            if let Some(model) = model {
                c.model(model)?;
            }
        }
        Op::PressViewButton { tab, call, button } => {
            c.op("press_view_button").tab(tab)?;
            c.text("the call id", call, MAX_ID_BYTES)?;
            c.button(button)?;
        }
        Op::CancelTurn { tab } => c.op("cancel_turn").tab(tab)?,
        Op::ListModels
        | Op::ListAgentKeys
        | Op::ListConnections
        | Op::ReadSshConfig
        | Op::AppBackground
        | Op::AppForeground => {}
        Op::SaveModelSettings { settings, api_key } => {
            c.op("save_model_settings").model(settings)?;
            c.optional("the API key", api_key.as_deref(), MAX_SECRET_BYTES)?;
        }
        Op::TestModel { settings, api_key } => {
            c.op("test_model").model(settings)?;
            c.optional("the API key", api_key.as_deref(), MAX_SECRET_BYTES)?;
        }
        Op::ListProviderModels { settings, api_key } => {
            c.op("list_provider_models").model(settings)?;
            c.optional("the API key", api_key.as_deref(), MAX_SECRET_BYTES)?;
        }
        Op::SaveConnection {
            name,
            target,
            settings,
            secrets,
            replace: _,
        } => {
            c.op("save_connection")
                .text("the name", name, MAX_NAME_BYTES)?;
            c.target(target)?;
            if let Some(settings) = settings {
                c.settings(settings)?;
            }
            c.count("the secrets", secrets.len(), MAX_LIST_ITEMS)?;
            for secret in secrets {
                let (SaveConnectionSecret::Password { value }
                | SaveConnectionSecret::Passphrase { value }) = secret;
                c.text("a secret", value, MAX_SECRET_BYTES)?;
            }
        }
        Op::DeleteConnection { name } => {
            c.op("delete_connection")
                .text("the name", name, MAX_NAME_BYTES)?;
        }
        Op::ImportSshConfig { names } => {
            c.op("import_ssh_config").list(
                "the names",
                names,
                MAX_LONG_LIST_ITEMS,
                MAX_NAME_BYTES,
            )?;
        }
        Op::UpdateConnectionSettings { name, settings } => {
            c.op("update_connection_settings")
                .text("the name", name, MAX_NAME_BYTES)?;
            c.settings(settings)?;
        }
        Op::SetConnectionTags { name, tags } => {
            c.op("set_connection_tags")
                .text("the name", name, MAX_NAME_BYTES)?;
            c.list("the tags", tags, MAX_LIST_ITEMS, MAX_NAME_BYTES)?;
        }
        Op::BroadcastLine {
            broadcast,
            tabs,
            line,
            skip_refused: _,
        } => {
            c.op("broadcast_line")
                .text("the broadcast id", broadcast, MAX_ID_BYTES)?;
            c.list("the tabs", tabs, MAX_LONG_LIST_ITEMS, MAX_ID_BYTES)?;
            c.text("the line", line, MAX_PATH_BYTES)?;
        }
        Op::FleetCheck {
            run,
            targets,
            command,
            mode: _,
        } => {
            c.op("fleet_check").text("the run id", run, MAX_ID_BYTES)?;
            c.list("the targets", targets, MAX_LONG_LIST_ITEMS, MAX_NAME_BYTES)?;
            c.text("the command", command, MAX_PATH_BYTES)?;
        }
        Op::FleetRun {
            run,
            targets,
            command,
            mode: _,
            approved,
            automatic: _,
            concurrency: _,
        } => {
            c.op("fleet_run").text("the run id", run, MAX_ID_BYTES)?;
            c.list("the targets", targets, MAX_LONG_LIST_ITEMS, MAX_NAME_BYTES)?;
            c.text("the command", command, MAX_PATH_BYTES)?;
            c.list(
                "the approved hosts",
                approved,
                MAX_LONG_LIST_ITEMS,
                MAX_NAME_BYTES,
            )?;
        }
        Op::ListSnippets { tab } => {
            if let Some(tab) = tab {
                c.op("list_snippets").tab(tab)?;
            }
        }
        Op::SaveSnippet { snippet, previous } => {
            c.op("save_snippet")
                .text("the name", &snippet.name, MAX_NAME_BYTES)?;
            c.optional("the previous name", previous.as_deref(), MAX_NAME_BYTES)?;
            c.text("the command", &snippet.command, MAX_PATH_BYTES)?;
            c.text("the description", &snippet.description, MAX_PATH_BYTES)?;
            c.count("the variables", snippet.variables.len(), MAX_LIST_ITEMS)?;
            let (kaiport_protocol::SnippetScope::Connection { name: scope }
            | kaiport_protocol::SnippetScope::Group { tag: scope }) = &snippet.scope
            else {
                return Ok(());
            };
            c.text("the scope", scope, MAX_NAME_BYTES)?;
        }
        Op::DeleteSnippet { name } => {
            c.op("delete_snippet")
                .text("the name", name, MAX_NAME_BYTES)?;
        }
        Op::ExpandSnippet { tab, name, values } => {
            c.op("expand_snippet").tab(tab)?;
            c.text("the name", name, MAX_NAME_BYTES)?;
            c.count("the values", values.len(), MAX_LIST_ITEMS)?;
            for value in values {
                c.text("a variable name", &value.name, MAX_NAME_BYTES)?;
                c.text("a value", &value.value, MAX_PATH_BYTES)?;
            }
        }
        Op::ReadSettings { tab } => c.op("read_settings").tab(tab)?,
        Op::ReadAudit { limit } => {
            c.op("read_audit")
                .number("the line count", *limit, MAX_AUDIT_LINES)?;
        }
    }
    Ok(())
}

/// A value's size as JSON, without writing it out.
fn json_bytes(value: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(data.len());
            Ok(data.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing into a counter cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

struct Checker<'a> {
    op: &'static str,
    tab: Option<&'a str>,
}

impl<'a> Checker<'a> {
    fn op(&mut self, op: &'static str) -> &mut Self {
        self.op = op;
        self
    }

    fn refuse(
        &self,
        what: &'static str,
        actual: usize,
        limit: usize,
        unit: &'static str,
    ) -> TooLarge {
        TooLarge {
            op: self.op,
            tab: self.tab.map(str::to_owned),
            what,
            actual: u64::try_from(actual).unwrap_or(u64::MAX),
            limit: u64::try_from(limit).unwrap_or(u64::MAX),
            unit,
        }
    }

    /// The op's tab id; errors after this one name the tab.
    fn tab(&mut self, tab: &'a str) -> Result<(), TooLarge> {
        self.bytes("the tab id", tab.len(), MAX_TAB_ID_BYTES)?;
        self.tab = Some(tab);
        Ok(())
    }

    fn bytes(&self, what: &'static str, actual: usize, limit: usize) -> Result<(), TooLarge> {
        if actual > limit {
            return Err(self.refuse(what, actual, limit, " bytes"));
        }
        Ok(())
    }

    fn text(&self, what: &'static str, text: &str, limit: usize) -> Result<(), TooLarge> {
        self.bytes(what, text.len(), limit)
    }

    fn optional(
        &self,
        what: &'static str,
        text: Option<&str>,
        limit: usize,
    ) -> Result<(), TooLarge> {
        text.map_or(Ok(()), |text| self.text(what, text, limit))
    }

    fn count(&self, what: &'static str, actual: usize, limit: usize) -> Result<(), TooLarge> {
        if actual > limit {
            return Err(self.refuse(what, actual, limit, " items"));
        }
        Ok(())
    }

    fn number(&self, what: &'static str, actual: u32, limit: u32) -> Result<(), TooLarge> {
        if actual > limit {
            return Err(self.refuse(what, actual as usize, limit as usize, ""));
        }
        Ok(())
    }

    /// At most `items` entries of at most `bytes` each.
    fn list(
        &self,
        what: &'static str,
        list: &[String],
        items: usize,
        bytes: usize,
    ) -> Result<(), TooLarge> {
        self.count(what, list.len(), items)?;
        list.iter()
            .try_for_each(|entry| self.text(what, entry, bytes))
    }

    fn size(&self, cols: u16, rows: u16) -> Result<(), TooLarge> {
        let max = u32::from(MAX_TERMINAL_SIZE);
        self.number("cols", u32::from(cols), max)?;
        self.number("rows", u32::from(rows), max)
    }

    fn target(&self, target: &TabTarget) -> Result<(), TooLarge> {
        match target {
            TabTarget::Local => Ok(()),
            TabTarget::Profile { name } => self.text("the connection name", name, MAX_NAME_BYTES),
            TabTarget::Ssh {
                host,
                port: _,
                user,
                identity_files,
                jump_hosts,
                keep_session: _,
                certificate_files,
                identity_agent,
                forward_agent: _,
            } => {
                self.text("the host", host, MAX_NAME_BYTES)?;
                self.text("the user", user, MAX_NAME_BYTES)?;
                self.list(
                    "the key files",
                    identity_files,
                    MAX_LIST_ITEMS,
                    MAX_PATH_BYTES,
                )?;
                self.list(
                    "the certificate files",
                    certificate_files,
                    MAX_LIST_ITEMS,
                    MAX_PATH_BYTES,
                )?;
                self.optional("the agent", identity_agent.as_deref(), MAX_PATH_BYTES)?;
                self.list("the jump hosts", jump_hosts, MAX_LIST_ITEMS, MAX_PATH_BYTES)
            }
            TabTarget::Storage {
                url,
                user,
                local_roots,
                identity_files,
            } => {
                self.text("the URL", url, MAX_PATH_BYTES)?;
                self.optional("the user", user.as_deref(), MAX_NAME_BYTES)?;
                self.list(
                    "the local folders",
                    local_roots,
                    MAX_LIST_ITEMS,
                    MAX_PATH_BYTES,
                )?;
                self.list(
                    "the key files",
                    identity_files,
                    MAX_LIST_ITEMS,
                    MAX_PATH_BYTES,
                )
            }
        }
    }

    fn settings(&self, settings: &ConnectionSettings) -> Result<(), TooLarge> {
        // The numbers are checked by `ConnectionSettings::validate` where they are used.
        for (what, list) in [
            ("forbidden_commands", &settings.forbidden_commands),
            ("allowed_commands", &settings.allowed_commands),
            (
                "extra_dangerous_commands",
                &settings.extra_dangerous_commands,
            ),
        ] {
            self.list(what, list, MAX_LONG_LIST_ITEMS, MAX_PATH_BYTES)?;
        }
        Ok(())
    }

    fn model(&self, model: &ModelSettings) -> Result<(), TooLarge> {
        self.text("the model", &model.model, MAX_NAME_BYTES)?;
        self.optional("the address", model.base_url.as_deref(), MAX_PATH_BYTES)?;
        self.optional(
            "the key variable",
            model.api_key_env.as_deref(),
            MAX_NAME_BYTES,
        )?;
        if let Some(tokens) = model.context_tokens {
            self.number("context_tokens", tokens, MAX_CONTEXT_TOKENS)?;
        }
        if let Some(tokens) = model.max_output_tokens {
            self.number("max_output_tokens", tokens, MAX_OUTPUT_TOKENS)?;
        }
        Ok(())
    }

    fn button(&self, button: &ViewButton) -> Result<(), TooLarge> {
        self.text("the button's label", &button.label, MAX_NAME_BYTES)?;
        self.text("the button's command", &button.command, MAX_PATH_BYTES)?;
        match &button.action {
            ButtonAction::Container { container, .. }
            | ButtonAction::FollowContainer { container } => {
                self.text("the container", container, MAX_NAME_BYTES)
            }
            ButtonAction::Service { name, .. } => self.text("the service", name, MAX_NAME_BYTES),
            ButtonAction::Kill { pid: _ } => Ok(()),
            ButtonAction::FollowFile { path } => self.text("the path", path, MAX_PATH_BYTES),
            ButtonAction::FollowJournal { unit } => {
                self.optional("the unit", unit.as_deref(), MAX_NAME_BYTES)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn op(value: serde_json::Value) -> Op {
        serde_json::from_value(value).unwrap()
    }

    fn refused(value: serde_json::Value) -> String {
        check(&op(value)).unwrap_err().to_string()
    }

    #[test]
    fn a_terminal_larger_than_a_thousand_cells_a_side_is_refused() {
        assert_eq!(
            refused(json!({"type": "resize", "tab": "t", "cols": 65535, "rows": 24})),
            "resize refused: cols (65535) over the limit of 1000"
        );
        assert_eq!(
            refused(
                json!({"type": "open_tab", "tab": "t", "target": {"kind": "local"},
                           "cols": 80, "rows": 1001})
            ),
            "open_tab refused: rows (1001) over the limit of 1000"
        );
        let error = check(&op(
            json!({"type": "resize", "tab": "t", "cols": 1, "rows": 65535}),
        ))
        .unwrap_err();
        assert_eq!(error.tab.as_deref(), Some("t"));
        for (cols, rows) in [(1000, 1000), (0, 0), (80, 24)] {
            let resize = json!({"type": "resize", "tab": "t", "cols": cols, "rows": rows});
            assert_eq!(check(&op(resize)), Ok(()));
        }
    }

    #[test]
    fn a_tab_id_too_long_for_a_terminal_frame_is_refused_and_not_echoed() {
        let long = "x".repeat(256);
        let error = check(&op(json!({"type": "close_tab", "tab": long}))).unwrap_err();
        assert_eq!(
            error.to_string(),
            "close_tab refused: the tab id (256 bytes) over the limit of 255 bytes"
        );
        assert_eq!(error.tab, None);
        let fits = "é".repeat(127);
        assert_eq!(
            check(&op(json!({"type": "close_tab", "tab": fits}))),
            Ok(())
        );
        let too_long = "é".repeat(128);
        assert!(check(&op(json!({"type": "close_tab", "tab": too_long}))).is_err());
    }

    #[test]
    fn texts_lists_and_counts_have_limits_that_name_the_field_not_its_value() {
        let secret = "s".repeat(MAX_SECRET_BYTES + 1);
        let message = refused(json!({"type": "answer_prompt", "prompt": "p",
                                     "answer": {"kind": "secret", "value": secret}}));
        assert_eq!(
            message,
            "answer_prompt refused: the secret (65537 bytes) over the limit of 65536 bytes"
        );
        let files = vec!["~/.ssh/id"; MAX_LIST_ITEMS + 1];
        assert_eq!(
            refused(
                json!({"type": "open_tab", "tab": "t", "cols": 80, "rows": 24,
                           "target": {"kind": "ssh", "host": "h", "port": 22, "user": "u",
                                      "identity_files": files}})
            ),
            "open_tab refused: the key files (65 items) over the limit of 64 items"
        );
        assert_eq!(
            refused(json!({"type": "read_audit", "limit": u32::MAX})),
            "read_audit refused: the line count (4294967295) over the limit of 10000"
        );
        let big = "a".repeat(MAX_ARGS_BYTES);
        assert!(
            refused(
                json!({"type": "run_tool", "tab": "t", "call": "c", "tool": "write_file",
                           "args": {"content": big}})
            )
            .starts_with("run_tool refused: the arguments (")
        );
        let pattern = "p".repeat(MAX_PATH_BYTES + 1);
        assert!(
            refused(json!({"type": "update_settings", "tab": "t",
                           "settings": {"forbidden_commands": [pattern]}}))
            .starts_with("update_settings refused: forbidden_commands (8193 bytes)")
        );
        assert_eq!(
            check(&op(
                json!({"type": "send_message", "tab": "t", "text": "hello"})
            )),
            Ok(())
        );
    }
}
