//! What went wrong with an MCP server, in words a person can act on
//! ("could not connect to http://127.0.0.1:3001/mcp: connection refused"),
//! instead of the transport's type names. The full error goes to the log.

use std::error::Error;

use rmcp::service::ServiceError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

/// What a failed call means for the link to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trouble {
    /// The server answered the call with an error; the link is fine.
    Answered,
    /// The call never reached a live session: the link must be made again,
    /// and the call may be sent again (the server did not run it).
    NotDelivered,
    /// The link broke while the call was out: the call may have run.
    Lost,
}

/// A failed call, said for people, and what it means for the link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Failure {
    pub(super) words: String,
    pub(super) trouble: Trouble,
}

/// Reads a failed call; `place` names the server ("http://…/mcp", "the process").
pub(super) fn call_failure(error: &ServiceError, place: &str) -> Failure {
    match error {
        ServiceError::McpError(answer) => Failure {
            words: format!("the server refused the call: {}", answer.message),
            trouble: Trouble::Answered,
        },
        ServiceError::TransportClosed => Failure {
            words: format!("the connection to {place} closed"),
            trouble: Trouble::Lost,
        },
        ServiceError::TransportSend(_) => {
            let cause = cause(error);
            let trouble = if cause.undelivered {
                Trouble::NotDelivered
            } else {
                Trouble::Lost
            };
            Failure {
                words: cause.said(place),
                trouble,
            }
        }
        other => Failure {
            words: other.to_string(),
            trouble: Trouble::Lost,
        },
    }
}

/// Why a connection could not be made, in words.
pub(super) fn connect_failure(error: &(dyn Error + 'static), place: &str) -> String {
    cause(error).said(place)
}

/// The deepest cause worth telling, found by walking the error's chain.
struct Cause {
    /// No connection could be made (refused, no route).
    connect: bool,
    /// The request certainly did not reach a server that would run it: no
    /// connection, a pipe to a process that is gone, a forgotten session.
    undelivered: bool,
    /// What to say.
    text: String,
}

impl Cause {
    fn said(&self, place: &str) -> String {
        if self.connect {
            format!("could not connect to {place}: {}", self.text)
        } else {
            format!("{place}: {}", self.text)
        }
    }
}

fn cause(error: &(dyn Error + 'static)) -> Cause {
    let mut found = Cause {
        connect: false,
        undelivered: false,
        text: plain(&error.to_string()),
    };
    let mut next: Option<&(dyn Error + 'static)> = Some(error);
    while let Some(e) = next {
        if let Some(failed) = e.downcast_ref::<std::io::Error>() {
            found.text = io(failed);
            let refused = matches!(
                failed.kind(),
                std::io::ErrorKind::ConnectionRefused
                    | std::io::ErrorKind::HostUnreachable
                    | std::io::ErrorKind::NetworkUnreachable
            );
            found.connect |= refused;
            found.undelivered |= refused || failed.kind() == std::io::ErrorKind::BrokenPipe;
        } else if let Some(http) = e.downcast_ref::<StreamableHttpError<mcp_reqwest::Error>>() {
            match http {
                // The client's error holds the cause (a refused
                // connection) but does not chain it.
                StreamableHttpError::Client(sent) => {
                    next = Some(sent);
                    continue;
                }
                StreamableHttpError::SessionExpired => {
                    found.undelivered = true;
                    found.text = "the server ended the session".into();
                }
                StreamableHttpError::UnexpectedServerResponse(said) => {
                    found.undelivered |= said.to_lowercase().contains("session");
                    found.text = format!("the server answered: {said}");
                }
                other => found.text = plain(&other.to_string()),
            }
        } else if let Some(rmcp::service::ClientInitializeError::TransportError { error, .. }) =
            e.downcast_ref::<rmcp::service::ClientInitializeError>()
        {
            // Nor does a failed handshake chain its transport's error.
            next = Some(error);
            continue;
        } else if let Some(sent) = e.downcast_ref::<mcp_reqwest::Error>() {
            found.connect |= sent.is_connect();
            found.undelivered |= sent.is_connect();
            found.text = if sent.is_timeout() {
                "the request timed out".into()
            } else {
                plain(&sent.to_string())
            };
        } else if e.source().is_none() {
            // The innermost error says what happened ("invalid peer
            // certificate: UnknownIssuer", "dns error: …").
            found.text = plain(&e.to_string());
        }
        next = e.source();
    }
    found
}

/// An I/O error without its OS code: "connection refused".
pub(super) fn io(io: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match io.kind() {
        ErrorKind::ConnectionRefused => "connection refused".into(),
        ErrorKind::ConnectionReset => "the connection was reset".into(),
        ErrorKind::ConnectionAborted => "the connection was aborted".into(),
        ErrorKind::TimedOut => "timed out".into(),
        ErrorKind::NotFound => "no such file or program".into(),
        ErrorKind::PermissionDenied => "permission denied".into(),
        ErrorKind::UnexpectedEof | ErrorKind::BrokenPipe => "the connection closed".into(),
        _ => plain(&io.to_string()),
    }
}

/// A message with the transport's Rust type names (`Transport [rmcp::…<…>]
/// error:`) and OS codes (`(os error 111)`) taken out.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '[' | '<' => depth += 1,
            ']' | '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let out = match out.find(" (os error") {
        Some(at) => out[..at].to_owned(),
        None => out,
    };
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_and_os_codes_are_left_out() {
        assert_eq!(
            plain("Transport [rmcp::transport::worker::WorkerTransport<A<B>>] error: Client error"),
            "Transport error: Client error"
        );
        assert_eq!(
            plain("Connection refused (os error 111)"),
            "Connection refused"
        );
    }

    #[test]
    fn a_refused_connection_is_said_with_its_place() {
        let io = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(
            connect_failure(&io, "http://127.0.0.1:9/mcp"),
            "could not connect to http://127.0.0.1:9/mcp: connection refused"
        );
    }

    #[test]
    fn a_closed_transport_is_a_lost_link() {
        let failure = call_failure(&ServiceError::TransportClosed, "the process");
        assert_eq!(failure.trouble, Trouble::Lost);
        assert_eq!(failure.words, "the connection to the process closed");
    }
}
