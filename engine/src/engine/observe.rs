//! The façade's methods for what Airlock counts about itself, for
//! `GET /metrics` (see `metrics.rs`).

use crate::error::EngineError;
use crate::metrics::Metrics;
use crate::Engine;

impl Engine {
    /// What this process counts; the server adds its requests and event
    /// streams.
    pub fn metrics(&self) -> &Metrics {
        &self.core.metrics
    }

    /// Every metric in Prometheus' text format, with what waits read from
    /// the store now.
    pub async fn metrics_text(&self) -> Result<String, EngineError> {
        let backlog = self.core.store.backlog().await?;
        Ok(self.core.metrics.render(&backlog))
    }
}
