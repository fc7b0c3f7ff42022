//! What a candidate policy would have done with a live call: the operator's
//! `shadow_policy`, evaluated beside the real one and never enforced, so a
//! change can be watched on real traffic before it bites.

use serde::{Deserialize, Serialize};

/// The candidate's verdict on one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShadowVerdict {
    /// `allow`, `ask`, `deny` or `hidden`, the words of `airlock policy check`.
    pub verdict: String,
    /// Why, under the candidate.
    pub reason: String,
    /// Whether the real policy decided otherwise.
    pub differs: bool,
}
