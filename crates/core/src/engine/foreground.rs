//! Coming back from the background (`Op::AppForeground`, see [`crate::lifecycle`]): every
//! connection is asked to answer; after a suspension, running turns end with a note and
//! transfers that stay still are cut.

use super::tabs::Tab;
use super::{Engine, Inner, lock};
use crate::shell_io::ShellClosed;
use crate::ssh::SshSession;
use kaiport_protocol::*;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

impl Inner {
    /// `Op::AppForeground` (see [`crate::lifecycle`]): every connection checked at once; after a
    /// suspension, running turns ended with a note and transfers that stay still cut.
    pub(super) async fn app_foreground(
        self: Arc<Self>,
        engine: &Engine,
        suspended: Option<Duration>,
    ) {
        let reports_before = self.transfers.progress();
        if let Some(suspended) = suspended {
            crate::agent::interrupt_running_turns(engine, suspended);
        }
        let tabs: Vec<Arc<Tab>> = lock(&self.tabs).values().cloned().collect();
        let checks = tabs.into_iter().filter_map(|tab| {
            let state = tab.session.borrow().clone();
            let ssh = match state {
                Some(Ok(resources)) => resources.ssh.clone()?,
                _ => return None,
            };
            let inner = self.clone();
            Some(async move { inner.check_connection(&tab, &ssh).await })
        });
        futures::future::join_all(checks).await;
        if suspended.is_none() || reports_before.is_empty() {
            return;
        }
        tokio::time::sleep(crate::lifecycle::TRANSFER_STALL).await;
        let reports_now = self.transfers.progress();
        for (key, before) in reports_before {
            if reports_now.get(&key) == Some(&before) {
                self.cut_transfer(&key.0, &key.1, crate::lifecycle::stalled_transfer());
            }
        }
    }

    /// Asks the server of `tab` to answer now; one that does not is given up: its transfers are
    /// cut and a terminal tab is reported dropped (and connected again by itself, or by its
    /// "Reconnect"). A
    /// connection already gone was reported when it went (or, in a storage tab, is opened
    /// again on its next use).
    pub(super) async fn check_connection(self: &Arc<Self>, tab: &Arc<Tab>, ssh: &SshSession) {
        if ssh.is_closed() || ssh.answers_within(crate::lifecycle::CHECK_TIMEOUT).await {
            return;
        }
        let reason = crate::lifecycle::unanswered_check();
        for call in self.transfers.running_in(&tab.id) {
            self.cut_transfer(
                &tab.id,
                &call,
                crate::lifecycle::transfer_on_lost_connection(),
            );
        }
        let generation = tab.generation.load(Ordering::SeqCst);
        ssh.abandon(reason.clone()).await;
        if tab.kind == TabKind::Terminal {
            // Worded as the shell's own end will be (which then is not told again).
            let closed = ShellClosed::ConnectionLost {
                reason: ssh.close_reason().unwrap_or(reason),
            };
            self.connection_ended(&tab.id, generation, &closed);
        }
    }

    /// Ends a running transfer as failed, saying `reason`.
    pub(super) fn cut_transfer(&self, tab: &str, call: &str, reason: String) {
        let Some(found) = self.tab(tab) else { return };
        let token = lock(&found.calls).get(call).cloned();
        if let Some(token) = token {
            self.transfers.cut(tab, call, reason);
            token.cancel();
        }
    }
}
