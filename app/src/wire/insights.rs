//! What the insights page shows, in words and figures worked out on the
//! server.

use serde::{Deserialize, Serialize};

/// The windows the page offers, as written in its links.
pub const INSIGHT_WINDOWS: [&str; 3] = ["24h", "7d", "30d"];

/// The insights of one window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InsightsView {
    /// `24h`, `7d` or `30d`.
    pub window: String,
    /// Each source and tool with calls in the window, the busiest first.
    pub tools: Vec<ToolInsightItem>,
    /// Where the shadow policy would have decided otherwise.
    pub shadow: Vec<ShadowItem>,
    /// Whether a shadow policy is configured.
    pub shadowing: bool,
    /// Whether more calls were made than one report reads.
    pub capped: bool,
}

/// One source and tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolInsightItem {
    pub source: String,
    pub tool: String,
    pub calls: usize,
    pub allowed: usize,
    pub asked: usize,
    pub denied: usize,
    pub expired: usize,
    /// "96%", or "—" when nobody decided.
    pub approval: String,
    /// Time to a person's decision, "3 s", "2 min"; "—" when none.
    pub p50: String,
    pub p95: String,
    pub rubber_stamp: Option<RubberStampItem>,
}

/// A tool people approve without looking, and the rule that would allow it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RubberStampItem {
    /// "approved 24 of 25 times, half of them within 3 s".
    pub summary: String,
    /// The YAML to paste.
    pub rule_yaml: String,
    /// What replaying the last week under the rule changes, in words
    /// ("26 calls ask → allow"); empty when nothing.
    pub replay: Vec<String>,
    /// How many calls the replay read.
    pub replayed: usize,
}

/// Calls of one tool the shadow policy would have decided otherwise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShadowItem {
    pub source: String,
    pub tool: String,
    pub real: String,
    pub shadow: String,
    pub count: usize,
    pub reason: String,
}

#[cfg(feature = "ssr")]
mod from_engine {
    use super::*;
    use engine::insights::{InsightsReport, RubberStamp, ToolInsight};

    impl InsightsView {
        /// The report for `window`, in words.
        pub fn of(window: &str, report: InsightsReport, shadowing: bool) -> Self {
            Self {
                window: window.to_owned(),
                tools: report.tools.into_iter().map(ToolInsightItem::of).collect(),
                shadow: report
                    .shadow
                    .into_iter()
                    .map(|s| ShadowItem {
                        source: s.source,
                        tool: s.tool,
                        real: s.real.to_owned(),
                        shadow: s.shadow,
                        count: s.count,
                        reason: s.reason,
                    })
                    .collect(),
                shadowing,
                capped: report.capped,
            }
        }
    }

    impl ToolInsightItem {
        fn of(t: ToolInsight) -> Self {
            let approval = t
                .approval_rate()
                .map_or("—".to_owned(), |rate| format!("{:.0}%", rate * 100.0));
            let rubber_stamp = t
                .rubber_stamp
                .clone()
                .map(|stamp| RubberStampItem::of(&t, stamp));
            Self {
                approval,
                p50: t.decision_p50.map_or("—".to_owned(), took),
                p95: t.decision_p95.map_or("—".to_owned(), took),
                rubber_stamp,
                source: t.source,
                tool: t.tool,
                calls: t.calls,
                allowed: t.allowed,
                asked: t.asked,
                denied: t.denied,
                expired: t.expired,
            }
        }
    }

    impl RubberStampItem {
        fn of(t: &ToolInsight, stamp: RubberStamp) -> Self {
            let decided = t.approved + t.rejected;
            let median = t.decision_p50.map_or("—".to_owned(), took);
            Self {
                summary: format!(
                    "approved {} of {decided} times, half of them within {median}",
                    t.approved
                ),
                rule_yaml: stamp.rule_yaml,
                replay: stamp
                    .replay
                    .iter()
                    .map(|c| match c.count {
                        1 => format!("1 call {} → {}", c.was, c.now),
                        n => format!("{n} calls {} → {}", c.was, c.now),
                    })
                    .collect(),
                replayed: stamp.replayed,
            }
        }
    }

    /// A wait, shortly: "40 ms", "3 s", "4 min", "2.5 h", "3 d".
    fn took(d: chrono::Duration) -> String {
        let s = d.num_milliseconds() as f64 / 1000.0;
        match s {
            s if s < 1.0 => format!("{} ms", d.num_milliseconds().max(0)),
            s if s < 10.0 => format!("{s:.1} s").replace(".0 s", " s"),
            s if s < 60.0 => format!("{s:.0} s"),
            s if s < 3600.0 => format!("{:.0} min", s / 60.0),
            s if s < 86_400.0 => format!("{:.1} h", s / 3600.0).replace(".0 h", " h"),
            s => format!("{:.1} d", s / 86_400.0).replace(".0 d", " d"),
        }
    }
}
