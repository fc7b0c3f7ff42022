//! What the Sources page shows of a tool source.

use serde::{Deserialize, Serialize};

/// A tool source, as people read it on the Sources page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceItem {
    /// Its name, as policy blocks refer to it.
    pub name: String,
    /// How it is reached: `stdio`, `HTTP`, `built in` or `policy only`.
    pub transport: String,
    /// The command line or the URL; empty for the others.
    pub target: String,
    /// `connecting`, `up`, `down`, `restarting`; `policy only` for a block
    /// with no connection.
    pub state: String,
    /// Since when, for people ("3 min ago"); `None` for a source that is
    /// always there.
    pub since_label: Option<String>,
    /// Why it is down, or went down last, in words.
    pub error: Option<String>,
    /// When a call last succeeded, for people.
    pub last_call_label: Option<String>,
    /// The tools its policy offers, by the names policy lists use.
    pub offered: Vec<String>,
    /// The tools its policy hides.
    pub hidden: Vec<String>,
}

#[cfg(feature = "ssr")]
impl SourceItem {
    /// The page's entry for a source, with ages relative to `now`.
    pub fn from_report(
        report: engine::tools::report::SourceReport,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Self {
        use engine::tools::report::Transport;
        let ago = |at: chrono::DateTime<chrono::Utc>| super::ago((now - at).num_seconds());
        let transport = match report.transport {
            Transport::Stdio => "stdio",
            Transport::Http => "HTTP",
            Transport::BuiltIn => "built in",
            Transport::PolicyOnly => "policy only",
            Transport::Agent => "A2A",
        };
        let status = report.status;
        let built_in = report.transport == Transport::BuiltIn;
        Self {
            name: report.name,
            transport: transport.to_owned(),
            target: report.target,
            state: match (&status, report.transport) {
                (Some(status), _) => status.state.word(),
                (None, Transport::Agent) => "remote agent",
                (None, _) => "policy only",
            }
            .to_owned(),
            since_label: status.as_ref().filter(|_| !built_in).map(|s| ago(s.since)),
            error: status.as_ref().and_then(|s| s.error.clone()),
            last_call_label: status.as_ref().and_then(|s| s.last_call_at).map(ago),
            offered: report.offered,
            hidden: report.hidden,
        }
    }
}
