//! The person looking, as the cards need them: whether their access
//! decides, who they are and their approver groups. The engine refuses a
//! decision it does not allow whatever a page shows; this lets the page
//! show only what will work, and say who a call waits for.

use serde::{Deserialize, Serialize};

use super::ToolCallItem;

/// Who is looking at the cards.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Deciding {
    /// Whether their access decides at all (a viewer's does not).
    pub may_decide: bool,
    /// Their person id, when someone signed in.
    pub person_id: Option<String>,
    /// The approver groups they are in.
    pub groups: Vec<String>,
    /// The one local person's name, when nobody signs in (their approvals
    /// carry no person id).
    #[serde(default)]
    pub name: Option<String>,
}

/// What the person looking may do with one pending call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MayDo {
    /// Every decision.
    Decide,
    /// Only refuse it: they asked for it and its policy has someone else
    /// approve it.
    RefuseOnly,
    /// Only refuse or edit it: they approved it, and it needs someone
    /// else's approval too.
    ApprovedAlready,
    /// Nothing: the card says whom it waits for.
    Wait(String),
}

impl Deciding {
    /// Someone who decides everything: the one local person when nobody
    /// signs in.
    pub fn anyone() -> Self {
        Self {
            may_decide: true,
            ..Self::default()
        }
    }

    /// What they may do with `call`, by the rule the engine applies
    /// (`Actor::may_decide`).
    pub fn may_do(&self, call: &ToolCallItem) -> MayDo {
        let in_a_group = call.approvers.iter().any(|g| self.groups.contains(g));
        if !self.may_decide || !(call.approvers.is_empty() || in_a_group) {
            return MayDo::Wait(waiting_for(&call.approvers));
        }
        if call.not_by.is_some() && call.not_by == self.person_id {
            return MayDo::RefuseOnly;
        }
        if self.approved(call) {
            return MayDo::ApprovedAlready;
        }
        MayDo::Decide
    }

    /// Whether they gave one of the approvals `call` has so far, by the
    /// rule the engine applies (`Approval::same_person`).
    pub fn approved(&self, call: &ToolCallItem) -> bool {
        call.quorum
            .approvals
            .iter()
            .any(|a| match (&a.by_id, &self.person_id) {
                (Some(by), Some(me)) => by == me,
                (None, None) => self.name.as_deref() == Some(a.by.as_str()),
                _ => false,
            })
    }

    /// Whether Approve all approves `call` for them: a waiting call, not a
    /// question (it takes an answer), that they may approve.
    pub fn may_approve(&self, call: &ToolCallItem) -> bool {
        call.can_decide() && !call.is_question() && self.may_do(call) == MayDo::Decide
    }

    /// Whether Reject all refuses `call` for them: a waiting call, not a
    /// question, that they may at least refuse.
    pub fn may_refuse(&self, call: &ToolCallItem) -> bool {
        call.can_decide() && !call.is_question() && !matches!(self.may_do(call), MayDo::Wait(_))
    }
}

/// "Waiting for ops", "Waiting for ops or sec", or "Waiting for an approver".
fn waiting_for(groups: &[String]) -> String {
    if groups.is_empty() {
        "Waiting for an approver".to_owned()
    } else {
        format!("Waiting for {}", groups.join(" or "))
    }
}
