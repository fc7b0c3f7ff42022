//! What the store keeps of calls that need several approvals: a trait of
//! its own, which every [`Store`](super::Store) implements too.

use async_trait::async_trait;

use super::{Applied, DecisionChange, StoreError};
use crate::domain::{Approval, Event, ToolCall};

/// One more approval of a call that needs several.
#[derive(Debug, Clone)]
pub struct NewApproval {
    /// The decision it is part of: who, when, where, and for an edit the
    /// new arguments (an edit starts the count again).
    pub change: DecisionChange,
    /// The approvals as read: the change applies only while they still are.
    pub before: Vec<Approval>,
    /// The approvals after it.
    pub after: Vec<Approval>,
    /// Whether `after` is enough: the call is then approved, in the same
    /// transaction.
    pub completes: bool,
}

/// How an approval was taken.
#[derive(Debug, Clone)]
pub enum ApprovalAdded {
    /// Counted: the call waits for more, as stored, with its event.
    Counted(Box<(ToolCall, Event)>),
    /// The last one needed: the call is approved.
    Completed(Box<Applied>),
    /// The call is not as read any more (another approval, an edit or a
    /// decision came first); read it again.
    Raced,
}

/// Counting approvals.
#[async_trait]
pub trait QuorumStore: Send + Sync {
    /// Records an approval of a pending call, if its approvals are still
    /// `before`, with its audit entry and event; when it `completes` the
    /// quorum, approves the call as [`DecisionStore::decide`](super::DecisionStore::decide)
    /// does. Exactly once: of two approvals that read the same approvals,
    /// one is counted and the other is told to read again.
    async fn add_approval(&self, approval: &NewApproval) -> Result<ApprovalAdded, StoreError>;
}
