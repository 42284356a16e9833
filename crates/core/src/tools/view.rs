//! show_view in the tool pipeline: the parameters checked into a [`ViewRequest`], the view
//! built by [`crate::views`] on the tab's connection, the whole report handed to the front ends
//! (`Event::ViewShown`) and only the summary returned for the model.

use super::{Action, Prepared, ToolContext};
use crate::policy::CallFacts;
use crate::views::{self, ViewHost, ViewRequest};
use kaiport_protocol::tools::{ShowViewParams, ShowViewResult};
use serde_json::Value;

pub(super) fn prepare_show_view(params: ShowViewParams) -> Result<Prepared, String> {
    let request = views::check(&params)?;
    Ok(Prepared {
        facts: CallFacts::Read { contents: false },
        preview: None,
        action: Action::ShowView(request),
    })
}

pub(super) async fn show_view(
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
    super::to_value(&result)
}
