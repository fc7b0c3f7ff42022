//! The façade's methods for what Airlock counts about itself: `GET
//! /metrics` (see `metrics.rs`) and the insights page (`insights.rs`).

use crate::error::EngineError;
use crate::metrics::Metrics;
use crate::Engine;

impl Engine {
    /// What this process counts; the server adds its requests and event
    /// streams.
    pub fn metrics(&self) -> &Metrics {
        &self.core.metrics
    }

    /// The insights of the last `window`: per source and tool, what the
    /// policy and people did, rubber stamps and shadow differences.
    pub async fn insights(
        &self,
        window: chrono::Duration,
    ) -> Result<crate::insights::InsightsReport, EngineError> {
        crate::insights::report(&self.core, window).await
    }

    /// Every metric in Prometheus' text format, with what waits read from
    /// the store now.
    pub async fn metrics_text(&self) -> Result<String, EngineError> {
        let backlog = self.core.backlog().backlog().await?;
        Ok(self.core.metrics.render(&backlog))
    }
}
