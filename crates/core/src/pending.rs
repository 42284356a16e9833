//! Waiting for the user: pending approvals, ask_user questions and connection prompts, each
//! keyed by an id and answered by an `Op`. A wait ends with the answer, or when its cancellation
//! token fires; it has no time limit of its own (the user may take as long as they like).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// A set of questions waiting for answers of type `A`.
#[derive(Debug)]
pub struct Pending<K, A> {
    waiting: Mutex<HashMap<K, oneshot::Sender<A>>>,
}

impl<K: Eq + Hash + Clone, A> Default for Pending<K, A> {
    fn default() -> Self {
        Pending {
            waiting: Mutex::new(HashMap::new()),
        }
    }
}

/// How a wait ended without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoAnswer {
    Cancelled,
    /// The asker was dropped (engine shutting down).
    Abandoned,
}

impl<K: Eq + Hash + Clone, A> Pending<K, A> {
    /// Register `key`, run `announce` (which emits the event that shows the question), then wait.
    pub async fn ask(
        &self,
        key: K,
        cancel: &CancellationToken,
        announce: impl FnOnce(),
    ) -> Result<A, NoAnswer> {
        let (sender, receiver) = oneshot::channel();
        self.lock().insert(key.clone(), sender);
        announce();
        let answer = tokio::select! {
            answer = receiver => answer.map_err(|_| NoAnswer::Abandoned),
            () = cancel.cancelled() => Err(NoAnswer::Cancelled),
        };
        self.lock().remove(&key);
        answer
    }

    /// Deliver an answer. False when nothing waits under `key` (already answered, cancelled,
    /// or never asked).
    pub fn answer(&self, key: &K, answer: A) -> bool {
        match self.lock().remove(key) {
            Some(sender) => sender.send(answer).is_ok(),
            None => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, oneshot::Sender<A>>> {
        self.waiting
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test]
    async fn answer_and_cancel() {
        let pending: Arc<Pending<String, bool>> = Arc::default();
        let cancel = CancellationToken::new();
        let asker = {
            let pending = pending.clone();
            let cancel = cancel.clone();
            tokio::spawn(async move { pending.ask("a".to_owned(), &cancel, || {}).await })
        };
        while !pending.answer(&"a".to_owned(), true) {
            tokio::task::yield_now().await;
        }
        assert_eq!(asker.await.unwrap(), Ok(true));
        assert!(!pending.answer(&"a".to_owned(), true), "answered twice");

        let asker = {
            let pending = pending.clone();
            let cancel = cancel.clone();
            tokio::spawn(async move { pending.ask("b".to_owned(), &cancel, || {}).await })
        };
        cancel.cancel();
        assert_eq!(asker.await.unwrap(), Err(NoAnswer::Cancelled));
    }
}
