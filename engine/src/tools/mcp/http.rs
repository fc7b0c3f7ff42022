//! The streamable HTTP transport to an MCP server, through a client that
//! turns a stale session into one rmcp knows how to heal.
//!
//! A server restarted under us answers the old session id with an error
//! that carries no request id (`400 {"code":-32000,"message":"Bad Request:
//! No valid session ID provided"}`). rmcp cannot route such an error to the
//! call that caused it and drops it, so the call would hang until its
//! time-out. The server did not run the call, so we report the answer as
//! an expired session: rmcp then opens a new session and sends it again.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use futures::stream::BoxStream;
use mcp_reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use rmcp::transport::StreamableHttpClientTransport;
use sse_stream::Sse;

type Posted<E> = Result<StreamableHttpPostResponse, StreamableHttpError<E>>;

/// The HTTP client rmcp speaks through, with stale sessions reported as such.
#[derive(Clone)]
pub(super) struct SessionAware(mcp_reqwest::Client);

/// What a POST's answer means: an error without a request id, to a POST
/// that named a session, is the server not knowing that session. Without a
/// session it is a refusal the call must hear at once, not a silence.
fn healed<E: std::error::Error + Send + Sync + 'static>(
    answer: Posted<E>,
    session: bool,
) -> Posted<E> {
    let Ok(StreamableHttpPostResponse::Json(JsonRpcMessage::Error(error), _)) = &answer else {
        return answer;
    };
    if error.id.is_some() {
        return answer;
    }
    if session {
        tracing::debug!(error = %error.error.message, "the server no longer knows the session");
        return Err(StreamableHttpError::SessionExpired);
    }
    Err(StreamableHttpError::UnexpectedServerResponse(
        error.error.message.to_string().into(),
    ))
}

impl StreamableHttpClient for SessionAware {
    type Error = mcp_reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Posted<Self::Error> {
        let session = session_id.is_some();
        let answer = self
            .0
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        healed(answer, session)
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Posted<Self::Error> {
        let session = session_id.is_some();
        let answer = self
            .0
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        healed(answer, session)
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Posted<Self::Error> {
        let session = session_id.is_some();
        let answer = self
            .0
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await;
        healed(answer, session)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.0
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        self.0
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        self.0
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

/// The transport to a server reached over streamable HTTP, trusting the
/// certificate authorities in `ca_cert` as well as the system's.
pub(super) fn transport(
    url: &str,
    ca_cert: Option<&Path>,
) -> Result<StreamableHttpClientTransport<SessionAware>, String> {
    // rmcp's HTTP client is built without a crypto provider of its own and
    // takes the process's: ring, the one the LLM client's reqwest uses.
    // Installing it once more changes nothing.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = mcp_reqwest::Client::builder()
        // As rmcp's own client: an idle connection kept for reuse can stall
        // the next request on a delayed ACK.
        .pool_max_idle_per_host(0)
        // rmcp's own client follows same-origin 307s and 308s only; this one
        // follows none, and rmcp reports the redirect as the server's answer.
        .redirect(mcp_reqwest::redirect::Policy::none());
    let builder = match ca_cert {
        None => builder,
        Some(path) => {
            let shown = path.display();
            let pem =
                std::fs::read(path).map_err(|e| format!("cannot read ca_cert {shown}: {e}"))?;
            let certs = mcp_reqwest::Certificate::from_pem_bundle(&pem)
                .ok()
                .filter(|certs| !certs.is_empty())
                .ok_or_else(|| format!("ca_cert {shown} holds no PEM certificate"))?;
            builder.tls_certs_merge(certs)
        }
    };
    let client = builder
        .build()
        .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
    Ok(StreamableHttpClientTransport::with_client(
        SessionAware(client),
        StreamableHttpClientTransportConfig::with_uri(url),
    ))
}
