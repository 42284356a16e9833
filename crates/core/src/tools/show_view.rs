//! show_view in the tool pipeline: the parameters checked into a [`ViewRequest`], the view
//! built by [`crate::views`] on the tab's connection, the whole report handed to the front ends
//! (`Event::ViewShown`) and only the summary returned for the model.

use super::tool::Tool;
use super::{Action, Prepared, ToolContext, to_value};
use crate::policy::CallFacts;
use crate::views::{self, ViewHost, ViewRequest};
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{ShowViewParams, ShowViewResult, ToolName};
use serde_json::Value;

pub(crate) struct ShowView;

impl Tool for ShowView {
    const NAME: ToolName = ToolName::ShowView;
    const DESCRIPTION: &'static str = "Show the user a server view and get a compact summary (what is wrong first). Views: processes, disk, \
         disk_usage (path: folder), ports, logs (path: a log file; default the system journal or syslog), cron, \
         certificates (path: a certificate file or folder; default /etc/letsencrypt/live and nginx's), services, \
         service_status (unit), updates (from the cached lists, never refreshed), websites (nginx), docker, \
         docker_logs (container). Read-only commands on a separate channel, never in the terminal, never sudo; \
         15 s per view.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal];
    type Params = ShowViewParams;
    type Found = ();

    fn check(params: &ShowViewParams) -> Result<(), String> {
        views::check(params).map(drop)
    }

    fn facts(_: &ShowViewParams, _: Option<&()>) -> CallFacts {
        CallFacts::Read { contents: false }
    }

    async fn prepare(params: ShowViewParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: None,
            action: Action::ShowView(views::check(&params)?),
        })
    }
}

pub(crate) async fn execute(
    request: ViewRequest,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let host = match (&context.resources.ssh, &context.resources.terminal) {
        (Some(ssh), _) => ViewHost::Ssh(ssh),
        (None, Some(_)) => ViewHost::Local,
        (None, None) => return Err("show_view works in terminal tabs only".to_owned()),
    };
    let report = views::show(
        &request,
        host,
        context.cancel,
        context.settings.send_file_contents,
    )
    .await?;
    let result = ShowViewResult {
        view: report.view,
        summary: report.summary.clone(),
    };
    if let Some(reporter) = &context.views {
        reporter(report);
    }
    to_value(&result)
}
