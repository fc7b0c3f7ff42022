//! What waits, as the store counts it for `GET /metrics`.

/// Calls waiting for a person and deliveries waiting to go out, now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Backlog {
    /// The waiting calls, by source and tool.
    pub pending: Vec<PendingCount>,
    /// Review callbacks not yet delivered nor given up.
    pub callbacks: i64,
    /// Notices not yet delivered nor given up.
    pub notices: i64,
}

/// How many calls of one tool wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingCount {
    pub source: String,
    pub tool: String,
    pub count: i64,
}
