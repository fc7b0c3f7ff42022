//! Headers that keep browsers from misreading or framing what Airlock sends.
//!
//! Pages carry their Content-Security-Policy themselves (the shell sets it
//! with the nonce of its render); these go on every answer.

use axum::http::{header, HeaderValue};
use axum::response::Response;

/// Middleware: no content sniffing, no referrer to other sites (review
/// links carry their token in the URL), and no framing (clickjacking an
/// Approve button) in browsers older than `frame-ancestors`.
pub async fn add_security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}
