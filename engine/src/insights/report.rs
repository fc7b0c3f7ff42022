//! The figures themselves, from calls already read: pure, so tests give
//! them a history and check every number.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use super::REPLAY_DAYS;
use crate::config::policy_cases::Expect;
use crate::config::replay::{what_happened, ReplayReport};
use crate::config::Config;
use crate::domain::{DecisionKind, ToolCall};

/// At least so many decisions by people before a tool can be a rubber
/// stamp.
const STAMP_DECISIONS: usize = 20;
/// At least this share of them approvals.
const STAMP_APPROVED: f64 = 0.95;
/// And half of them taken faster than this.
const STAMP_MEDIAN_SECONDS: i64 = 10;

/// Everything the page shows for one window.
#[derive(Debug, Clone, PartialEq)]
pub struct InsightsReport {
    pub since: DateTime<Utc>,
    /// Each source and tool with calls in the window, the busiest first.
    pub tools: Vec<ToolInsight>,
    /// Where the shadow policy would have decided otherwise.
    pub shadow: Vec<ShadowDifference>,
    /// Whether more calls were made than one report reads.
    pub capped: bool,
}

/// One source and tool over the window.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInsight {
    pub source: String,
    pub tool: String,
    pub calls: usize,
    pub allowed: usize,
    pub asked: usize,
    /// Denied or hidden by the policy.
    pub denied: usize,
    /// Approved by people (as proposed, edited, or always allowed).
    pub approved: usize,
    pub rejected: usize,
    pub expired: usize,
    /// From proposal to a person's decision.
    pub decision_p50: Option<Duration>,
    pub decision_p95: Option<Duration>,
    pub rubber_stamp: Option<RubberStamp>,
}

impl ToolInsight {
    /// Approvals among people's decisions, when they took any.
    pub fn approval_rate(&self) -> Option<f64> {
        let decided = self.approved + self.rejected;
        (decided > 0).then(|| self.approved as f64 / decided as f64)
    }
}

/// A tool people approve nearly always, and fast: the rule that would
/// allow it, and what replaying the last week under that rule changes.
#[derive(Debug, Clone, PartialEq)]
pub struct RubberStamp {
    pub rule_yaml: String,
    pub replay: Vec<ReplayChange>,
    /// How many calls of the tool the replay read.
    pub replayed: usize,
}

/// Calls whose verdict the suggested rule changes from `was` to `now`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayChange {
    pub was: &'static str,
    pub now: &'static str,
    pub count: usize,
}

/// Calls of one tool the shadow policy would have decided otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct ShadowDifference {
    pub source: String,
    pub tool: String,
    pub real: &'static str,
    pub shadow: String,
    pub count: usize,
    /// The shadow's reason, for the first of them.
    pub reason: String,
}

pub(super) fn build(
    config: &Config,
    calls: &[ToolCall],
    since: DateTime<Utc>,
    now: DateTime<Utc>,
    capped: bool,
) -> InsightsReport {
    let mut tools: BTreeMap<(&str, &str), (ToolInsight, Vec<Duration>)> = BTreeMap::new();
    let mut shadow: BTreeMap<(&str, &str, &'static str, &str), ShadowDifference> = BTreeMap::new();
    for call in calls.iter().filter(|c| c.created_at >= since) {
        let Some(happened) = what_happened(call) else {
            continue;
        };
        let (insight, waits) = tools
            .entry((call.source.as_str(), call.tool.as_str()))
            .or_insert_with(|| (empty(call), Vec::new()));
        insight.calls += 1;
        match happened {
            Expect::Allow => insight.allowed += 1,
            Expect::Ask => insight.asked += 1,
            Expect::Deny | Expect::Hidden => insight.denied += 1,
        }
        if let Some(decision) = &call.decision {
            let by_person = match decision.kind {
                DecisionKind::Approve | DecisionKind::Edit | DecisionKind::AlwaysAllow => {
                    insight.approved += 1;
                    true
                }
                DecisionKind::Reject => {
                    insight.rejected += 1;
                    true
                }
                DecisionKind::Expire => {
                    insight.expired += 1;
                    false
                }
                DecisionKind::Cancel => false,
            };
            if by_person {
                waits.push(decision.at - call.created_at);
            }
        }
        if let Some(differs) = call.shadow.as_ref().filter(|s| s.differs) {
            let key = (
                call.source.as_str(),
                call.tool.as_str(),
                happened.as_str(),
                differs.verdict.as_str(),
            );
            shadow
                .entry(key)
                .or_insert_with(|| ShadowDifference {
                    source: call.source.clone(),
                    tool: call.tool.clone(),
                    real: happened.as_str(),
                    shadow: differs.verdict.clone(),
                    count: 0,
                    reason: differs.reason.clone(),
                })
                .count += 1;
        }
    }
    let week = now - Duration::days(REPLAY_DAYS);
    let mut tools: Vec<ToolInsight> = tools
        .into_values()
        .map(|(mut insight, mut waits)| {
            waits.sort();
            insight.decision_p50 = quantile(&waits, 0.5);
            insight.decision_p95 = quantile(&waits, 0.95);
            if stamped(&insight) {
                let history: Vec<&ToolCall> = calls
                    .iter()
                    .filter(|c| {
                        c.created_at >= week && c.source == insight.source && c.tool == insight.tool
                    })
                    .collect();
                insight.rubber_stamp = suggestion(config, &insight, &history);
            }
            insight
        })
        .collect();
    tools.sort_by(|a, b| {
        b.calls
            .cmp(&a.calls)
            .then_with(|| (&a.source, &a.tool).cmp(&(&b.source, &b.tool)))
    });
    let mut shadow: Vec<ShadowDifference> = shadow.into_values().collect();
    shadow.sort_by_key(|s| std::cmp::Reverse(s.count));
    InsightsReport {
        since,
        tools,
        shadow,
        capped,
    }
}

fn empty(call: &ToolCall) -> ToolInsight {
    ToolInsight {
        source: call.source.clone(),
        tool: call.tool.clone(),
        calls: 0,
        allowed: 0,
        asked: 0,
        denied: 0,
        approved: 0,
        rejected: 0,
        expired: 0,
        decision_p50: None,
        decision_p95: None,
        rubber_stamp: None,
    }
}

/// Whether people approve the tool nearly always, and fast.
fn stamped(insight: &ToolInsight) -> bool {
    let decided = insight.approved + insight.rejected;
    decided >= STAMP_DECISIONS
        && insight
            .approval_rate()
            .is_some_and(|rate| rate >= STAMP_APPROVED)
        && insight
            .decision_p50
            .is_some_and(|p50| p50 < Duration::seconds(STAMP_MEDIAN_SECONDS))
}

/// The rule that would allow the tool, replayed over `history` as
/// `airlock policy replay` replays a window.
fn suggestion(
    config: &Config,
    insight: &ToolInsight,
    history: &[&ToolCall],
) -> Option<RubberStamp> {
    let candidate = config.allowing(&insight.source, &insight.tool).ok()?;
    let mut replayed = ReplayReport::default();
    for call in history {
        replayed.add(&candidate, call);
    }
    Some(RubberStamp {
        rule_yaml: config.allowing_yaml(&insight.source, &insight.tool),
        replay: replayed
            .changes
            .iter()
            .map(|(&(was, now), change)| ReplayChange {
                was,
                now,
                count: change.count,
            })
            .collect(),
        replayed: replayed.replayed,
    })
}

/// The `q` quantile of sorted `waits` (nearest rank).
fn quantile(waits: &[Duration], q: f64) -> Option<Duration> {
    let last = waits.len().checked_sub(1)?;
    waits.get(((last as f64) * q).round() as usize).copied()
}
