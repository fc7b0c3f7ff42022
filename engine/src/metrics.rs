//! What Airlock counts about itself, for `GET /metrics`: decisions and how
//! long they took, expiries, HTTP requests, open event streams, model
//! requests and outbox deliveries, kept in this process (each replica
//! counts its own, as Prometheus expects), and what waits, read from the
//! store when asked. Rendered in Prometheus' text format.

mod family;
mod text;

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use crate::domain::{Backlog, CallbackAttempt, DecisionKind, ToolCall};
use family::{Family, Histogram};

pub use text::CONTENT_TYPE;

/// Seconds from a call's proposal to its decision: a second to a day.
const DECISION_WAIT: &[f64] = &[
    1.0, 5.0, 15.0, 30.0, 60.0, 300.0, 900.0, 1800.0, 3600.0, 14400.0, 86400.0,
];
/// Seconds to answer an HTTP request: a millisecond to ten seconds.
const REQUEST_TIME: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];
/// Seconds for a model to answer: a tenth of a second to two minutes.
const MODEL_TIME: &[f64] = &[0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0];

/// The counters of this process; clones share them.
#[derive(Debug, Clone, Default)]
pub struct Metrics(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    decisions: Family<u64>,
    decision_wait: Family<Histogram>,
    expired: Family<u64>,
    requests: Family<u64>,
    request_time: Family<Histogram>,
    streams: AtomicI64,
    model_time: Family<Histogram>,
    deliveries: Family<u64>,
    shadow: Family<u64>,
}

impl Default for Inner {
    fn default() -> Self {
        Self {
            decisions: Family::new(
                "airlock_decisions_total",
                "Decisions on tool calls and questions, by outcome and by where they were taken.",
                &["outcome", "channel"],
            ),
            decision_wait: Family::new(
                "airlock_decision_wait_seconds",
                "Time from a call's proposal to its decision.",
                &["outcome"],
            ),
            expired: Family::new(
                "airlock_expired_calls_total",
                "Calls nobody decided in time, by source and tool.",
                &["source", "tool"],
            ),
            requests: Family::new(
                "airlock_http_requests_total",
                "HTTP requests answered, by route, method and status.",
                &["route", "method", "status"],
            ),
            request_time: Family::new(
                "airlock_http_request_duration_seconds",
                "Time to answer an HTTP request (to its headers), by route and method.",
                &["route", "method"],
            ),
            streams: AtomicI64::new(0),
            model_time: Family::new(
                "airlock_model_request_duration_seconds",
                "Time for the model to answer a request, by outcome (ok or error).",
                &["outcome"],
            ),
            deliveries: Family::new(
                "airlock_outbox_deliveries_total",
                "Attempts to deliver callbacks and notices, by outbox and outcome (delivered, retry, gave_up).",
                &["outbox", "outcome"],
            ),
            shadow: Family::new(
                "airlock_shadow_differences_total",
                "Live calls the shadow policy would have decided otherwise, by the real verdict and the shadow's.",
                &["real", "shadow"],
            ),
        }
    }
}

/// An open event stream, counted until it is dropped.
#[derive(Debug)]
pub struct OpenStream(Arc<Inner>);

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.streams.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Metrics {
    /// Counts `call`'s decision, just taken, and how long it waited.
    pub fn decided(&self, call: &ToolCall) {
        let Some(decision) = &call.decision else {
            return;
        };
        let outcome = decision.kind.as_str();
        let inner = &self.0;
        inner.decisions.inc(&[outcome, decision.channel.as_str()]);
        let waited = (decision.at - call.created_at).num_milliseconds().max(0) as f64 / 1000.0;
        inner
            .decision_wait
            .observe(&[outcome], DECISION_WAIT, waited);
        if decision.kind == DecisionKind::Expire {
            inner.expired.inc(&[&call.source, &call.tool]);
        }
    }

    /// Counts an HTTP request to `route` (the matched path) and its time.
    pub fn request(&self, route: &str, method: &str, status: u16, seconds: f64) {
        let inner = &self.0;
        inner.requests.inc(&[route, method, &status.to_string()]);
        inner
            .request_time
            .observe(&[route, method], REQUEST_TIME, seconds);
    }

    /// Counts an event stream as open until the answer is dropped.
    pub fn stream_opened(&self) -> OpenStream {
        self.0.streams.fetch_add(1, Ordering::Relaxed);
        OpenStream(self.0.clone())
    }

    /// Counts a request to the model and its time.
    pub fn model_request(&self, seconds: f64, ok: bool) {
        let outcome = if ok { "ok" } else { "error" };
        self.0.model_time.observe(&[outcome], MODEL_TIME, seconds);
    }

    /// Counts an attempt to deliver from `outbox` (`callbacks`, `notices`).
    pub fn delivery(&self, outbox: &str, outcome: Delivery) {
        self.0.deliveries.inc(&[outbox, outcome.as_str()]);
    }

    /// Counts a live call the shadow policy decides otherwise: `real` and
    /// `shadow` are verdicts in words (`allow`, `ask`, `deny`, `hidden`).
    pub fn shadow_differs(&self, real: &str, shadow: &str) {
        self.0.shadow.inc(&[real, shadow]);
    }

    /// Every metric in Prometheus' text format, with `backlog` (what waits,
    /// as the store has it now).
    pub fn render(&self, backlog: &Backlog) -> String {
        let inner = &self.0;
        let mut out = String::new();
        text::header(
            &mut out,
            "airlock_pending_calls",
            "Calls waiting for a person now, by source and tool.",
            "gauge",
        );
        for pending in &backlog.pending {
            let labels = [
                ("source", pending.source.as_str()),
                ("tool", pending.tool.as_str()),
            ];
            text::sample(
                &mut out,
                "airlock_pending_calls",
                &labels,
                pending.count as f64,
            );
        }
        text::header(
            &mut out,
            "airlock_outbox_backlog",
            "Callbacks and notices waiting to be delivered, by outbox.",
            "gauge",
        );
        for (outbox, count) in [
            ("callbacks", backlog.callbacks),
            ("notices", backlog.notices),
        ] {
            text::sample(
                &mut out,
                "airlock_outbox_backlog",
                &[("outbox", outbox)],
                count as f64,
            );
        }
        text::counters(&mut out, &inner.decisions);
        text::histograms(&mut out, &inner.decision_wait);
        text::counters(&mut out, &inner.expired);
        text::counters(&mut out, &inner.requests);
        text::histograms(&mut out, &inner.request_time);
        text::header(
            &mut out,
            "airlock_open_event_streams",
            "Server-sent event streams open now.",
            "gauge",
        );
        let open = inner.streams.load(Ordering::Relaxed);
        text::sample(&mut out, "airlock_open_event_streams", &[], open as f64);
        text::histograms(&mut out, &inner.model_time);
        text::counters(&mut out, &inner.deliveries);
        text::counters(&mut out, &inner.shadow);
        out
    }
}

/// How an attempt to deliver ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    Delivered,
    /// It failed and will be tried again.
    Retry,
    /// It failed for the last time.
    GaveUp,
}

impl Delivery {
    /// How `attempt` ended.
    pub fn of(attempt: &CallbackAttempt) -> Self {
        match attempt {
            CallbackAttempt::Delivered { .. } => Delivery::Delivered,
            CallbackAttempt::Retry { .. } => Delivery::Retry,
            CallbackAttempt::GaveUp { .. } => Delivery::GaveUp,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Delivery::Delivered => "delivered",
            Delivery::Retry => "retry",
            Delivery::GaveUp => "gave_up",
        }
    }
}

#[cfg(test)]
mod tests;
