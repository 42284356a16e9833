//! Plan state per tab for propose_plan / update_plan (feature `plan`).
//!
//! The life of a plan: in plan mode Pilot proposes one plan (≤ 30 steps) → a `PlanProposed` card
//! and an approval (the policy always asks) → the user's approval is the approval of the plan:
//! the plan is `Approved` and the engine switches the tab to ask mode; a refusal marks it
//! `Rejected` and the tab stays in plan mode (Pilot may propose a revised plan). Afterwards
//! update_plan sets step statuses (no approval) or adds a step, which waits for the user's
//! confirmation (its approval) and is dropped if they refuse. Every change emits `PlanUpdated`
//! with the whole plan.
//!
//! The arguments are checked by the tools (`tools::propose_plan`, `tools::update_plan`).
//! [`PlanBook`] holds the state and returns the events to emit; the engine only forwards them.
//! This module must never approve a plan or a step by itself: only [`PlanBook::approved`] after a
//! person's approval does.

use crate::tools::{Action, MAX_PLAN_STEPS};
use kaiport_protocol::tools::{PlanResult, PlanStep, PlanStepSpec, PlanStepStatus};
use kaiport_protocol::{CallId, Event, PlanCard, PlanPhase, TabId};
use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Debug, Clone, PartialEq)]
struct TabPlan {
    card: PlanCard,
    /// The step update_plan added and the user has not answered yet (0-based).
    pending_step: Option<usize>,
}

/// The plans of all tabs.
#[derive(Debug, Default)]
pub struct PlanBook {
    plans: Mutex<HashMap<TabId, TabPlan>>,
}

fn new_step(spec: PlanStepSpec, awaiting_confirmation: bool) -> PlanStep {
    PlanStep {
        title: spec.title,
        kind: spec.kind,
        detail: spec.detail,
        status: PlanStepStatus::Pending,
        note: None,
        awaiting_confirmation,
    }
}

fn result_of(card: &PlanCard) -> PlanResult {
    PlanResult {
        title: card.title.clone(),
        steps: card.steps.clone(),
        approved: card.phase == PlanPhase::Approved,
    }
}

impl PlanBook {
    fn plans(&self) -> std::sync::MutexGuard<'_, HashMap<TabId, TabPlan>> {
        self.plans
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The tab's plan as a card, if it has one.
    pub fn card(&self, tab: &str) -> Option<PlanCard> {
        self.plans().get(tab).map(|plan| plan.card.clone())
    }

    /// Before the policy decides a plan call: record the proposal or the added step (both wait
    /// for the user) and return the events for the cards. An error is a message for the model.
    pub fn before_decision(
        &self,
        tab: &str,
        call: &CallId,
        action: &Action,
    ) -> Result<Vec<Event>, String> {
        let mut plans = self.plans();
        match action {
            Action::ProposePlan(params) => {
                match plans.get(tab).map(|plan| plan.card.phase) {
                    Some(PlanPhase::Proposed) => {
                        return Err(
                            "propose_plan: a plan is already waiting for the user's answer"
                                .to_owned(),
                        );
                    }
                    Some(PlanPhase::Approved) => {
                        return Err(
                            "propose_plan: this tab already has an approved plan; use update_plan to report progress or add a step"
                                .to_owned(),
                        );
                    }
                    Some(PlanPhase::Rejected) | None => {}
                }
                let card = PlanCard {
                    title: params.title.clone(),
                    findings: params.findings.clone(),
                    steps: params
                        .steps
                        .iter()
                        .cloned()
                        .map(|spec| new_step(spec, false))
                        .collect(),
                    phase: PlanPhase::Proposed,
                };
                plans.insert(
                    tab.to_owned(),
                    TabPlan {
                        card: card.clone(),
                        pending_step: None,
                    },
                );
                Ok(vec![Event::PlanProposed {
                    tab: tab.to_owned(),
                    call: call.clone(),
                    plan: card,
                }])
            }
            Action::UpdatePlan(params) => {
                let Some(plan) = plans
                    .get_mut(tab)
                    .filter(|plan| plan.card.phase == PlanPhase::Approved)
                else {
                    return Err("update_plan: this tab has no approved plan; propose one with propose_plan in plan mode".to_owned());
                };
                if let Some(step) = params.step {
                    let count = plan.card.steps.len();
                    if step as usize > count {
                        return Err(format!(
                            "update_plan: the plan has {count} steps; there is no step {step}"
                        ));
                    }
                    return Ok(Vec::new());
                }
                let Some(spec) = params.add.clone() else {
                    return Ok(Vec::new());
                };
                if plan.pending_step.is_some() {
                    return Err(
                        "update_plan: an added step is already waiting for the user's confirmation"
                            .to_owned(),
                    );
                }
                if plan.card.steps.len() >= MAX_PLAN_STEPS {
                    return Err(format!(
                        "update_plan: the plan already has {MAX_PLAN_STEPS} steps"
                    ));
                }
                plan.card.steps.push(new_step(spec, true));
                plan.pending_step = Some(plan.card.steps.len() - 1);
                Ok(vec![Event::PlanUpdated {
                    tab: tab.to_owned(),
                    plan: plan.card.clone(),
                }])
            }
            _ => Ok(Vec::new()),
        }
    }

    /// The user refused (or the call was cancelled): a proposal is rejected, an added step dropped.
    pub fn refused(&self, tab: &str, action: &Action) -> Vec<Event> {
        let mut plans = self.plans();
        let Some(plan) = plans.get_mut(tab) else {
            return Vec::new();
        };
        match action {
            Action::ProposePlan(_) if plan.card.phase == PlanPhase::Proposed => {
                plan.card.phase = PlanPhase::Rejected;
            }
            Action::UpdatePlan(params) if params.add.is_some() => match plan.pending_step.take() {
                Some(index) if index < plan.card.steps.len() => {
                    plan.card.steps.remove(index);
                }
                _ => return Vec::new(),
            },
            _ => return Vec::new(),
        }
        vec![Event::PlanUpdated {
            tab: tab.to_owned(),
            plan: plan.card.clone(),
        }]
    }

    /// Run an allowed plan call. `by_person`: a person approved it (not `--yes` or autopilot);
    /// only then does a proposal become the approved plan. Returns the result for the model, the
    /// events, and whether the tab leaves plan mode.
    pub fn approved(
        &self,
        tab: &str,
        action: &Action,
        by_person: bool,
    ) -> Result<(PlanResult, Vec<Event>, bool), String> {
        let mut plans = self.plans();
        let Some(plan) = plans.get_mut(tab) else {
            return Err("this tab has no plan".to_owned());
        };
        let mut leaves_plan_mode = false;
        match action {
            Action::ProposePlan(_) => {
                if plan.card.phase != PlanPhase::Proposed {
                    return Err("propose_plan: the proposal is no longer waiting".to_owned());
                }
                if !by_person {
                    plan.card.phase = PlanPhase::Rejected;
                    return Err(
                        "propose_plan: a plan needs a person's approval; it was answered automatically, so it is not approved"
                            .to_owned(),
                    );
                }
                plan.card.phase = PlanPhase::Approved;
                leaves_plan_mode = true;
            }
            Action::UpdatePlan(params) => {
                if let (Some(step), Some(status)) = (params.step, params.status) {
                    let Some(entry) = plan.card.steps.get_mut((step as usize).saturating_sub(1))
                    else {
                        return Err(format!("update_plan: there is no step {step}"));
                    };
                    if entry.awaiting_confirmation {
                        return Err(format!(
                            "update_plan: step {step} is still waiting for the user's confirmation"
                        ));
                    }
                    entry.status = status;
                    if params.note.is_some() {
                        entry.note.clone_from(&params.note);
                    }
                } else if params.add.is_some() {
                    let Some(index) = plan.pending_step.take() else {
                        return Err("update_plan: no added step is waiting".to_owned());
                    };
                    if !by_person {
                        plan.card.steps.remove(index);
                        return Err(
                            "update_plan: an added step needs a person's confirmation; it was answered automatically, so it was not added"
                                .to_owned(),
                        );
                    }
                    if let Some(step) = plan.card.steps.get_mut(index) {
                        step.awaiting_confirmation = false;
                        step.note.clone_from(&params.note);
                    }
                }
            }
            _ => return Err("not a plan call".to_owned()),
        }
        let events = vec![Event::PlanUpdated {
            tab: tab.to_owned(),
            plan: plan.card.clone(),
        }];
        Ok((result_of(&plan.card), events, leaves_plan_mode))
    }

    /// The tab closed.
    pub fn forget(&self, tab: &str) {
        self.plans().remove(tab);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kaiport_protocol::tools::{PlanStepKind, ProposePlanParams, UpdatePlanParams};
    use pretty_assertions::assert_eq;

    fn spec(title: &str) -> PlanStepSpec {
        PlanStepSpec {
            title: title.to_owned(),
            kind: PlanStepKind::Command,
            detail: None,
        }
    }

    fn proposal(steps: usize) -> ProposePlanParams {
        ProposePlanParams {
            title: "Fix nginx".to_owned(),
            findings: "config error".to_owned(),
            steps: (1..=steps).map(|i| spec(&format!("step {i}"))).collect(),
        }
    }

    fn update(
        step: Option<u32>,
        status: Option<PlanStepStatus>,
        add: Option<PlanStepSpec>,
    ) -> UpdatePlanParams {
        UpdatePlanParams {
            step,
            status,
            note: Some("n".to_owned()),
            add,
        }
    }

    #[test]
    fn a_plan_lives_from_proposal_to_done_steps() {
        let book = PlanBook::default();
        let propose = Action::ProposePlan(proposal(2));
        let events = book
            .before_decision("t", &"c1".to_owned(), &propose)
            .unwrap();
        assert!(
            matches!(&events[..], [Event::PlanProposed { plan, .. }] if plan.phase == PlanPhase::Proposed)
        );
        // Only one proposal waits at a time.
        assert!(
            book.before_decision("t", &"c2".to_owned(), &propose)
                .is_err()
        );
        // Status updates need an approved plan.
        let done = Action::UpdatePlan(update(Some(1), Some(PlanStepStatus::Done), None));
        assert!(book.before_decision("t", &"c3".to_owned(), &done).is_err());
        let (result, _, leaves) = book.approved("t", &propose, true).unwrap();
        assert!(result.approved && leaves);
        assert!(
            book.before_decision("t", &"c4".to_owned(), &propose)
                .is_err()
        );
        book.before_decision("t", &"c5".to_owned(), &done).unwrap();
        let (result, events, leaves) = book.approved("t", &done, true).unwrap();
        assert!(!leaves);
        assert_eq!(result.steps[0].status, PlanStepStatus::Done);
        assert_eq!(result.steps[0].note.as_deref(), Some("n"));
        assert!(matches!(&events[..], [Event::PlanUpdated { .. }]));
        let missing = Action::UpdatePlan(update(Some(3), Some(PlanStepStatus::Done), None));
        assert!(
            book.before_decision("t", &"c6".to_owned(), &missing)
                .unwrap_err()
                .contains("no step 3")
        );
    }

    #[test]
    fn added_steps_wait_for_confirmation() {
        let book = PlanBook::default();
        let propose = Action::ProposePlan(proposal(1));
        book.before_decision("t", &"c1".to_owned(), &propose)
            .unwrap();
        book.approved("t", &propose, true).unwrap();
        let add = Action::UpdatePlan(update(None, None, Some(spec("restart nginx"))));
        book.before_decision("t", &"c2".to_owned(), &add).unwrap();
        let card = book.card("t").unwrap();
        assert_eq!(card.steps.len(), 2);
        assert!(card.steps[1].awaiting_confirmation);
        // A status change on the unconfirmed step is refused.
        let early = Action::UpdatePlan(update(Some(2), Some(PlanStepStatus::Running), None));
        book.before_decision("t", &"c3".to_owned(), &early).unwrap();
        assert!(book.approved("t", &early, true).is_err());
        // Refused: the step is gone.
        book.refused("t", &add);
        assert_eq!(book.card("t").unwrap().steps.len(), 1);
        // Confirmed: it stays, no longer waiting.
        book.before_decision("t", &"c4".to_owned(), &add).unwrap();
        let (result, _, _) = book.approved("t", &add, true).unwrap();
        assert_eq!(result.steps.len(), 2);
        assert!(!result.steps[1].awaiting_confirmation);
    }

    #[test]
    fn only_a_person_approves_a_plan() {
        let book = PlanBook::default();
        let propose = Action::ProposePlan(proposal(1));
        book.before_decision("t", &"c1".to_owned(), &propose)
            .unwrap();
        assert!(book.approved("t", &propose, false).is_err());
        assert_eq!(book.card("t").unwrap().phase, PlanPhase::Rejected);
        // A rejected plan can be replaced by a new proposal.
        book.before_decision("t", &"c2".to_owned(), &propose)
            .unwrap();
        book.refused("t", &propose);
        assert_eq!(book.card("t").unwrap().phase, PlanPhase::Rejected);
    }
}
