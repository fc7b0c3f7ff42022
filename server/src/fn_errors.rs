//! Gives server-function errors their real HTTP status.
//!
//! The server-function framework answers every error with 500, including
//! errors it raises itself before our code runs (a missing or malformed
//! argument). Every such error body is an `AppError` in JSON, so this layer
//! reads it and sets the status the error calls for: 400 for bad input, 404
//! for unknown ids, 500 only for our own failures.

use axum::body::{to_bytes, Body};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::StatusCode;

use app::error::AppError;

/// The header the framework puts on error answers.
const SERVER_FN_ERROR_HEADER: &str = "serverfnerror";

/// Error bodies are short JSON documents; anything longer is left alone.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Middleware: rewrites the status of server-function error answers.
pub async fn set_error_status(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    if response.status() != StatusCode::INTERNAL_SERVER_ERROR
        || !response.headers().contains_key(SERVER_FN_ERROR_HEADER)
    {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let bytes = match to_bytes(body, MAX_ERROR_BODY).await {
        Ok(bytes) => bytes,
        Err(_) => return Response::from_parts(parts, Body::empty()),
    };
    if let Ok(error) = serde_json::from_slice::<AppError>(&bytes) {
        parts.status = error.status_code();
        if let AppError::TooManyAttempts { retry_after_secs } = error {
            parts
                .headers
                .insert(http::header::RETRY_AFTER, retry_after_secs.into());
        }
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// An `AppError` as an answer outside the server functions: its status,
/// and its code, details and message as JSON, the shape every error of
/// Airlock's own has.
pub fn refused(error: AppError) -> Response {
    let mut body = serde_json::to_value(&error).unwrap_or_default();
    if let Some(fields) = body.as_object_mut() {
        fields.insert("message".into(), error.to_string().into());
    }
    (error.status_code(), axum::Json(body)).into_response()
}
