//! Review cases: every call that waits for a person is a case of the HITL
//! Protocol (v0.8) with a deep-linked review page, a status that agents poll,
//! an event stream and, for gateway calls, a signed callback.
//!
//! A case follows its tool call: the decision that settles the call settles
//! the case in the same transaction (see `store/sql/decisions.rs`), whichever
//! channel it came from (chat, review page, HTTP or expiry).

pub(crate) mod answer_page;
pub mod ask;
pub mod callbacks;
pub(crate) mod drafts;
pub(crate) mod gateway;
mod holder;
pub mod inline;
mod kept;
mod link;
pub mod notices;
pub(crate) mod page;
pub(crate) mod respond;
pub mod rounds;
pub mod slack_app;

#[cfg(test)]
mod tests;

use crate::domain::token;
use crate::domain::{
    case_for, CaseEvent, CaseId, CaseStatus, CaseType, LinkedCase, NewCase, Requester, ReviewCase,
    ReviewToken,
};
pub use answer_page::AnswerPage;
pub use ask::{AskRequest, Asked};
pub use gateway::{GatewayOutcome, GatewayRequest};
pub use page::PageForm;
pub use respond::{Response, ReviewContext, ReviewView, Submission};

/// The protocol version Airlock speaks.
pub const SPEC_VERSION: &str = "0.8";

/// A duration in the protocol's shorthand (`24h`, `7d`, `30m`, `90s`); a
/// day reads as `24h`, as the protocol's default does.
pub fn shorthand(duration: std::time::Duration) -> String {
    let s = duration.as_secs();
    match s {
        s if s > 86_400 && s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s > 0 && s % 3_600 == 0 => format!("{}h", s / 3_600),
        s if s > 0 && s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod shape_tests {
    use super::*;

    #[test]
    fn durations_read_in_the_protocols_shorthand() {
        let read = |s: u64| shorthand(std::time::Duration::from_secs(s));
        assert_eq!(read(86_400), "24h");
        assert_eq!(read(7 * 86_400), "7d");
        assert_eq!(read(1_800), "30m");
        assert_eq!(read(90), "90s");
    }
}
