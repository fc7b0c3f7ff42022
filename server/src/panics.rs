//! A handler that panics answers 500 with the usual error body and a log
//! line, instead of dropping the connection with nothing said.

use std::any::Any;

use axum::response::{IntoResponse, Response};
use axum::Json;
use http::StatusCode;
use serde_json::json;

/// For `CatchPanicLayer::custom`: the panic's message goes to the log,
/// never to the client.
pub fn answer_panic(panic: Box<dyn Any + Send + 'static>) -> Response {
    let what = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("(no message)");
    tracing::error!(panic = what, "a request's handler panicked");
    let body = json!({
        "code": "internal",
        "error": "internal",
        "message": "Airlock failed on this request; its log says why",
    });
    (StatusCode::INTERNAL_SERVER_ERROR, Json(body)).into_response()
}

#[cfg(test)]
mod tests {
    use axum::routing::get;
    use tower::ServiceExt;
    use tower_http::catch_panic::CatchPanicLayer;

    use super::answer_panic;

    async fn boom() -> &'static str {
        panic!("boom {}", 1)
    }

    #[tokio::test]
    async fn a_handler_that_panics_answers_500_with_the_error_body() {
        let router = axum::Router::new()
            .route("/", get(boom))
            .layer(CatchPanicLayer::custom(answer_panic));
        let request = http::Request::get("/").body(axum::body::Body::empty());
        let answer = router.oneshot(request.unwrap()).await.unwrap();
        assert_eq!(answer.status(), 500);
        let body = axum::body::to_bytes(answer.into_body(), 1024)
            .await
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["code"], "internal");
        assert!(!body["message"].as_str().unwrap().contains("boom"));
    }
}
