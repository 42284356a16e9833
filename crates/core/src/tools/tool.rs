//! The shape of one tool: everything kaiport knows about a tool lives in one file that
//! implements [`Tool`] — its name and description, the tabs it works in, its arguments and
//! their checks, the facts the policy decides on, and how it is prepared. The registry
//! (`tools::registry`) lists the tools of a build once; nothing else names a tool.
//!
//! The facts come from one function, [`Tool::facts`], given what the engine found on the server
//! or, where nobody asked it (`kaiport policy check`), nothing: then every question gets its
//! stricter answer (the target exists, links are not resolved). A tool must never derive its
//! facts a second way.

use super::{Prepared, ToolContext};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::ToolName;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;

/// One tool (see the module docs).
pub(crate) trait Tool: Send + Sync + 'static {
    const NAME: ToolName;
    /// What the model is told the tool does.
    const DESCRIPTION: &'static str;
    /// The kinds of tab the tool works in.
    const TABS: &'static [TabKind];
    /// The kinds of tab the user's own calls may use it in: more than [`Tool::TABS`] where
    /// a tab's pane offers the user what the model is not offered there.
    const USER_TABS: &'static [TabKind] = Self::TABS;

    /// The typed arguments (the protocol's parameter type; its schema is the model's).
    type Params: DeserializeOwned + Send + Sync;
    /// What preparing learns from the server that changes the facts (`()` when it asks
    /// nothing).
    type Found: Send + Sync;

    /// The call asks the user whatever the mode and rules allow (a deny still denies): its
    /// card is how the user confirms it.
    const ALWAYS_ASKS: bool = false;

    /// What the arguments must satisfy beyond their type; the message is the model's to fix.
    fn check(_params: &Self::Params) -> Result<(), String> {
        Ok(())
    }

    /// The facts the policy decides on. `found: None` means the server was not asked: assume
    /// the stricter answer to everything `Found` would say.
    fn facts(params: &Self::Params, found: Option<&Self::Found>) -> CallFacts;

    /// Reads what the call needs (never changes anything, except send_input's keys staged at a
    /// prompt, which the engine takes back on a refusal) and returns the facts, the preview
    /// and the action to run if allowed.
    fn prepare(
        params: Self::Params,
        context: &ToolContext<'_>,
    ) -> impl Future<Output = Result<Prepared, String>> + Send;
}

/// The tools' common form, for the registry: arguments as JSON.
pub trait AnyTool: Send + Sync {
    fn name(&self) -> ToolName;
    fn description(&self) -> &'static str;
    fn tabs(&self) -> &'static [TabKind];
    /// See [`Tool::USER_TABS`].
    fn user_tabs(&self) -> &'static [TabKind];
    /// See [`Tool::ALWAYS_ASKS`].
    fn always_asks(&self) -> bool;
    /// Parses and checks `args` (nothing is read or run).
    fn check_args(&self, args: &Value) -> Result<(), String>;
    /// The facts from the arguments alone, with the stricter answer to every question about
    /// the server (what `kaiport policy check` decides on).
    fn facts_unseen(&self, args: Value) -> Result<CallFacts, String>;
    /// Parses, checks and prepares `args` on a connected tab.
    fn prepare<'a>(
        &'a self,
        args: Value,
        context: &'a ToolContext<'a>,
    ) -> Pin<Box<dyn Future<Output = Result<Prepared, String>> + Send + 'a>>;
}

/// A [`Tool`] in the registry.
pub(crate) struct Registered<T>(std::marker::PhantomData<T>);

impl<T: Tool> Registered<T> {
    pub(crate) const TOOL: Self = Registered(std::marker::PhantomData);

    fn parsed(args: Value) -> Result<T::Params, String> {
        let params = parse::<T::Params>(T::NAME, args)?;
        T::check(&params)?;
        Ok(params)
    }
}

impl<T: Tool> AnyTool for Registered<T> {
    fn name(&self) -> ToolName {
        T::NAME
    }

    fn description(&self) -> &'static str {
        T::DESCRIPTION
    }

    fn tabs(&self) -> &'static [TabKind] {
        T::TABS
    }

    fn user_tabs(&self) -> &'static [TabKind] {
        T::USER_TABS
    }

    fn always_asks(&self) -> bool {
        T::ALWAYS_ASKS
    }

    fn check_args(&self, args: &Value) -> Result<(), String> {
        Self::parsed(args.clone()).map(drop)
    }

    fn facts_unseen(&self, args: Value) -> Result<CallFacts, String> {
        Ok(T::facts(&Self::parsed(args)?, None))
    }

    fn prepare<'a>(
        &'a self,
        args: Value,
        context: &'a ToolContext<'a>,
    ) -> Pin<Box<dyn Future<Output = Result<Prepared, String>> + Send + 'a>> {
        Box::pin(async move { T::prepare(Self::parsed(args)?, context).await })
    }
}

/// `args` as `T`; the error is a message for the model. No path, name or command line can
/// hold a NUL byte (SFTP would cut the request short and the terminal would read it as a key):
/// only send_input types raw keys (Ctrl-@ is one).
pub(crate) fn parse<T: DeserializeOwned>(name: ToolName, args: Value) -> Result<T, String> {
    if name != ToolName::SendInput
        && let Some(field) = nul_field(&args, "")
    {
        return Err(format!(
            "{name}: `{field}` contains a NUL byte (\\u0000), which no file name, path or command \
             line can hold; remove it and retry"
        ));
    }
    let args = match args {
        // Some models send no arguments at all for parameterless calls.
        Value::Null => json!({}),
        other => other,
    };
    if !args.is_object() {
        return Err(format!(
            "{name}: arguments must be a JSON object, not {}",
            json_kind(&args)
        ));
    }
    serde_json::from_value(args).map_err(|error| format!("{name}: invalid arguments: {error}"))
}

/// The first argument (as a dotted path) whose text holds a NUL byte.
fn nul_field(value: &Value, at: &str) -> Option<String> {
    let name = |key: &str| match at {
        "" => key.to_owned(),
        _ => format!("{at}.{key}"),
    };
    match value {
        Value::String(text) if text.contains('\0') => Some(at.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(index, item)| nul_field(item, &format!("{at}[{index}]"))),
        Value::Object(fields) => fields.iter().find_map(|(key, item)| {
            if key.contains('\0') {
                Some(name(key))
            } else {
                nul_field(item, &name(key))
            }
        }),
        _ => None,
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
