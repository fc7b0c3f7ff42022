//! `/healthz`: liveness and version for operators and tests.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Serialize;

use app::state::AppState;

/// The health report.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Health {
    /// `ok` when the store answers, else `degraded`.
    pub status: &'static str,
    /// Airlock's version.
    pub version: &'static str,
    /// The store backend in use.
    pub store: &'static str,
}

/// Answers 200 with the version when the store is reachable, 503 otherwise.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "Operations",
    responses(
        (status = 200, description = "Airlock and its store work.", body = Health),
        (status = 503, description = "The store does not answer.", body = Health),
    )
)]
pub async fn healthz(State(state): State<AppState>) -> (StatusCode, Json<Health>) {
    let store = state.engine.store();
    let reachable = store
        .list_conversations(&Default::default(), 1)
        .await
        .is_ok();
    let health = Health {
        status: if reachable { "ok" } else { "degraded" },
        version: engine::VERSION,
        store: store.backend(),
    };
    let code = if reachable {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (code, Json(health))
}
