//! Four eyes: a call whose policy asks for N approvals waits until N
//! distinct people approved it. The approvals so far live with the call;
//! any rejection still rejects at once, and an edit starts the count again
//! (the earlier approvals were of other arguments).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Channel, PersonId};

/// Most approvals a policy may ask for.
pub const MAX_APPROVALS: u32 = 10;

/// One person's approval of a call that needs several.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// Their name as recorded.
    pub by: String,
    /// The signed-in person, when one approved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_id: Option<PersonId>,
    pub at: DateTime<Utc>,
    pub channel: Channel,
}

impl Approval {
    /// Whether this approval is by the same person as `other`: the same
    /// signed-in person, or without sign-in, the same name.
    pub fn same_person(&self, other: &Approval) -> bool {
        match (&self.by_id, &other.by_id) {
            (Some(a), Some(b)) => a == b,
            (None, None) => self.by == other.by,
            _ => false,
        }
    }
}

/// How many approvals a call needs, and those it has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quorum {
    /// 1 for an ordinary call: one approval decides it.
    pub required: u32,
    /// The approvals given so far, oldest first, while it waits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approvals: Vec<Approval>,
}

impl Default for Quorum {
    fn default() -> Self {
        Self {
            required: 1,
            approvals: Vec::new(),
        }
    }
}

impl Quorum {
    /// Whether one approval is not enough.
    pub fn is_needed(&self) -> bool {
        self.required > 1
    }

    /// Whether `approval`'s person approved already.
    pub fn has(&self, approval: &Approval) -> bool {
        self.approvals.iter().any(|a| a.same_person(approval))
    }

    /// The approvals after `approval`: added to those given, or after an
    /// edit, in place of them.
    pub fn with(&self, approval: Approval, edit: bool) -> Vec<Approval> {
        let mut approvals = if edit {
            Vec::new()
        } else {
            self.approvals.clone()
        };
        approvals.push(approval);
        approvals
    }

    /// Whether `approvals` are enough.
    pub fn is_met_by(&self, approvals: &[Approval]) -> bool {
        approvals.len() as u32 >= self.required
    }

    /// How many more approvals it waits for.
    pub fn missing(&self) -> u32 {
        self.required.saturating_sub(self.approvals.len() as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by(name: &str, id: Option<&PersonId>) -> Approval {
        Approval {
            by: name.into(),
            by_id: id.cloned(),
            at: Utc::now(),
            channel: Channel::Chat,
        }
    }

    #[test]
    fn the_same_person_is_found_by_id_else_by_name() {
        let rita = PersonId::new();
        assert!(by("Rita", Some(&rita)).same_person(&by("Rita R.", Some(&rita))));
        assert!(!by("Rita", Some(&rita)).same_person(&by("Rita", Some(&PersonId::new()))));
        assert!(by("rita", None).same_person(&by("rita", None)));
        assert!(!by("rita", None).same_person(&by("Rita", Some(&rita))));
    }

    #[test]
    fn approvals_count_up_and_an_edit_starts_again() {
        let quorum = Quorum {
            required: 2,
            approvals: vec![by("rita", None)],
        };
        assert!(quorum.is_needed());
        assert_eq!(quorum.missing(), 1);
        assert!(quorum.has(&by("rita", None)));
        let two = quorum.with(by("sam", None), false);
        assert!(quorum.is_met_by(&two));
        let edited = quorum.with(by("sam", None), true);
        assert_eq!(edited.len(), 1);
        assert!(!quorum.is_met_by(&edited));
        assert!(!Quorum::default().is_needed());
    }
}
