//! Who may decide a call. The policy names a call's approver groups and
//! whether the person who asked for it is kept from approving it; this is
//! the one check of a signed-in person against them, for every channel.

use serde::{Deserialize, Serialize};

use super::call::ToolCall;
use super::id::PersonId;
use super::person::{Access, Action};

/// A signed-in person as a decision checks and records them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Actor {
    pub id: PersonId,
    /// How the records show them.
    pub display_name: String,
    pub access: Access,
    /// The approver groups they belong to (`auth.groups`).
    pub groups: Vec<String>,
}

/// Why a person may not decide a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Their access does not decide anything (a viewer).
    NotAllowed,
    /// The call waits for groups they are not in.
    NotAnApprover {
        /// The groups that may decide it.
        groups: Vec<String>,
    },
    /// They asked for the call, and its policy wants someone else to
    /// approve it (separation of duties).
    OwnRequest,
}

impl Actor {
    /// How records name them.
    pub fn byline(&self) -> super::person::PersonRef {
        super::person::PersonRef {
            id: self.id.clone(),
            name: self.display_name.clone(),
        }
    }

    /// Whether this person may decide `call`: their access must decide,
    /// they must be in one of its approver groups (when it names any), and
    /// they must not be the person its policy keeps from approving it.
    /// Only an approval needs the last: anyone who may decide may refuse.
    pub fn may_decide(&self, call: &ToolCall, approving: bool) -> Result<(), Refusal> {
        if !self.access.may(Action::Decide) {
            return Err(Refusal::NotAllowed);
        }
        if !call.approvers.is_empty() && !call.approvers.iter().any(|g| self.groups.contains(g)) {
            return Err(Refusal::NotAnApprover {
                groups: call.approvers.clone(),
            });
        }
        if approving && call.not_by.as_ref() == Some(&self.id) {
            return Err(Refusal::OwnRequest);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(approvers: &[&str], not_by: Option<&PersonId>) -> ToolCall {
        ToolCall {
            approvers: approvers.iter().map(|g| g.to_string()).collect(),
            not_by: not_by.cloned(),
            ..ToolCall::waiting("fs", "delete_file", serde_json::json!({}))
        }
    }

    fn actor(access: Access, groups: &[&str]) -> Actor {
        Actor {
            id: PersonId::new(),
            display_name: "Ada".into(),
            access,
            groups: groups.iter().map(|g| g.to_string()).collect(),
        }
    }

    /// One line of the table: a person, a call, a decision, the answer.
    struct Case {
        access: Access,
        groups: &'static [&'static str],
        approvers: &'static [&'static str],
        asked_for_it: bool,
        approving: bool,
        answer: Result<(), Refusal>,
    }

    fn case(
        access: Access,
        groups: &'static [&'static str],
        approvers: &'static [&'static str],
        (asked_for_it, approving): (bool, bool),
        answer: Result<(), Refusal>,
    ) -> Case {
        Case {
            access,
            groups,
            approvers,
            asked_for_it,
            approving,
            answer,
        }
    }

    #[test]
    fn access_groups_and_the_requester_decide_who_may_decide() {
        use Access::*;
        let ops = || Refusal::NotAnApprover {
            groups: vec!["ops".into()],
        };
        let (theirs, approve, refuse) = ((true, true), (false, true), (false, false));
        let table = [
            case(Approver, &[], &[], approve, Ok(())),
            case(Admin, &[], &[], approve, Ok(())),
            case(
                Viewer,
                &["ops"],
                &["ops"],
                approve,
                Err(Refusal::NotAllowed),
            ),
            case(Viewer, &[], &[], refuse, Err(Refusal::NotAllowed)),
            case(Approver, &["ops"], &["ops"], approve, Ok(())),
            case(Approver, &["dev", "ops"], &["ops", "sec"], approve, Ok(())),
            case(Approver, &["dev"], &["ops"], approve, Err(ops())),
            case(Approver, &["dev"], &["ops"], refuse, Err(ops())),
            // Administrators decide what their groups decide, like anyone.
            case(Admin, &[], &["ops"], approve, Err(ops())),
            case(
                Approver,
                &["ops"],
                &["ops"],
                theirs,
                Err(Refusal::OwnRequest),
            ),
            case(Approver, &["ops"], &["ops"], (true, false), Ok(())),
        ];
        for c in table {
            let person = actor(c.access, c.groups);
            let call = call(c.approvers, c.asked_for_it.then_some(&person.id));
            assert_eq!(
                person.may_decide(&call, c.approving),
                c.answer,
                "{:?} in {:?} on a call for {:?} (theirs: {}, approving: {})",
                c.access,
                c.groups,
                c.approvers,
                c.asked_for_it,
                c.approving
            );
        }
    }
}
