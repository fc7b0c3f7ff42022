//! The insights page's figures: per source and tool over a window, how
//! often the policy allowed, asked and denied, how people decided and how
//! fast, which tools people approve without looking (a rule to allow them,
//! replayed over the last week first), and where a shadow policy would
//! have decided otherwise. Read from the stored calls; nothing is applied.

mod report;
#[cfg(test)]
mod tests;

use chrono::Duration;

use crate::core::Core;
use crate::domain::{ToolCall, ToolCallId};
use crate::error::EngineError;

pub use report::{InsightsReport, ReplayChange, RubberStamp, ShadowDifference, ToolInsight};

/// The most calls read for one report; past this, the newest are left out
/// and the report says so.
pub const MOST_CALLS: usize = 100_000;

/// How many calls one read of the store takes.
const PAGE: i64 = 1_000;

/// A suggestion is replayed over this much history, whatever the window.
pub const REPLAY_DAYS: i64 = 7;

pub(crate) async fn report(core: &Core, window: Duration) -> Result<InsightsReport, EngineError> {
    let now = core.clock.now();
    let since = now - window;
    // Read back far enough for the suggestions' replay too.
    let read_from = since.min(now - Duration::days(REPLAY_DAYS));
    let mut calls: Vec<ToolCall> = Vec::new();
    let mut after: Option<ToolCallId> = None;
    let capped = loop {
        let page = core
            .call_reads()
            .calls_since(read_from, after.as_ref(), PAGE)
            .await?;
        let done = (page.len() as i64) < PAGE;
        after = page.last().map(|call| call.id.clone());
        calls.extend(page);
        if calls.len() >= MOST_CALLS {
            calls.truncate(MOST_CALLS);
            break true;
        }
        if done {
            break false;
        }
    };
    Ok(report::build(&core.config, &calls, since, now, capped))
}
