//! The transfers of every tab (upload, download, execute_plan): which run and how far they got,
//! which failed (so `Op::RetryTransfer` can run them again), and which kaiport cut, with why.

use super::lock;
use crate::tools;
use kaiport_protocol::*;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

type Key = (TabId, CallId);

#[derive(Default)]
pub(super) struct Transfers {
    /// Running ones and how many progress reports each has made: after a suspension, one whose
    /// count stops is cut.
    running: Arc<Mutex<HashMap<Key, u64>>>,
    /// Failed ones, for `Op::RetryTransfer`: (tab, call) → (tool, arguments).
    failed: Mutex<HashMap<Key, (String, Value)>>,
    /// Ended by kaiport (cut in the background), with why: they finish as failed.
    cut: Mutex<HashMap<Key, String>>,
}

impl Transfers {
    /// The tools that move files: shown in Transfers, retried with `Op::RetryTransfer`.
    pub(super) fn is_transfer(tool: &str) -> bool {
        matches!(tool, "upload" | "download" | "execute_plan")
    }

    /// Watched from now on (not while it waited for approval).
    pub(super) fn started(&self, tab: &str, call: &str) {
        lock(&self.running).insert((tab.to_owned(), call.to_owned()), 0);
    }

    /// The call ended with `outcome`: one kaiport cut fails with the reason it was cut, and a
    /// failed or cancelled transfer is kept for a retry (a denied one is not).
    pub(super) fn ended(
        &self,
        tab: &str,
        call: &str,
        tool: &str,
        args: &Value,
        outcome: ToolOutcome,
    ) -> ToolOutcome {
        let key = (tab.to_owned(), call.to_owned());
        let transfer = Self::is_transfer(tool);
        if transfer {
            lock(&self.running).remove(&key);
        }
        let mut outcome = outcome;
        if let Some(reason) = lock(&self.cut).remove(&key)
            && outcome.status != ToolStatus::Ok
        {
            // Cut by kaiport (see `foreground`): a failure, not the user's cancel.
            outcome = ToolOutcome {
                status: ToolStatus::Error,
                result: None,
                error: Some(reason),
                ..outcome
            };
        }
        if transfer && matches!(outcome.status, ToolStatus::Error | ToolStatus::Cancelled) {
            lock(&self.failed).insert(key, (tool.to_owned(), args.clone()));
        }
        outcome
    }

    /// A failed transfer's tool and arguments, taken for a retry (once).
    pub(super) fn take_failed(&self, tab: &str, call: &str) -> Option<(String, Value)> {
        lock(&self.failed).remove(&(tab.to_owned(), call.to_owned()))
    }

    /// The tab closed: its failed transfers cannot be retried.
    pub(super) fn forget_tab(&self, tab: &str) {
        lock(&self.failed).retain(|(of_tab, _), _| of_tab != tab);
    }

    /// How many progress reports each running transfer has made so far.
    pub(super) fn progress(&self) -> HashMap<Key, u64> {
        lock(&self.running).clone()
    }

    /// The running transfers of `tab`.
    pub(super) fn running_in(&self, tab: &str) -> Vec<CallId> {
        lock(&self.running)
            .keys()
            .filter(|(of_tab, _)| of_tab == tab)
            .map(|(_, call)| call.clone())
            .collect()
    }

    /// Marks a call as cut by kaiport, with why; the caller cancels it.
    pub(super) fn cut(&self, tab: &str, call: &str, reason: String) {
        lock(&self.cut).insert((tab.to_owned(), call.to_owned()), reason);
    }

    /// Turns a call's transfer progress into `TransferProgress` events.
    pub(super) fn reporter(
        &self,
        events: &mpsc::UnboundedSender<Event>,
        tab: &str,
        call: &str,
    ) -> tools::TransferReporter {
        let events = events.clone();
        let running = self.running.clone();
        let (tab, call) = (tab.to_owned(), call.to_owned());
        Arc::new(
            move |path: &str, progress: crate::storage::transfer::Progress| {
                if let Some(reports) = lock(&running).get_mut(&(tab.clone(), call.clone())) {
                    *reports += 1;
                }
                // A closed stream means no front end is left to tell.
                let _ = events.send(Event::TransferProgress {
                    tab: tab.clone(),
                    call: call.clone(),
                    path: path.to_owned(),
                    transferred: progress.transferred,
                    total: progress.total,
                    rate: progress.rate,
                    eta_s: progress.eta_s,
                    done: progress.done,
                });
            },
        )
    }
}
