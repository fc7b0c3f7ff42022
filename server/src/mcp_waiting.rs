//! The calls each MCP session's requests wait on, so that a session that
//! ends withdraws them at once, as its client's: an HTTP client's `DELETE
//! /mcp`, or the stdio client of `airlock mcp --config` closing standard
//! input or the process being told to stop. Without this a call outlived
//! its client, and an approval given later ran it for nobody.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use engine::domain::ToolCallId;
use engine::Engine;
use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::sync::CancellationToken;

/// Why a call is withdrawn when its request is cancelled.
pub const CANCELLED: &str = "the MCP client cancelled its request";

/// Why a call is withdrawn when its client's session ends.
pub const GONE: &str = engine::proxy::CLIENT_GONE;

/// Waiting calls by session, each with whom to record its withdrawal as.
#[derive(Debug, Default)]
pub struct Waiting {
    sessions: Mutex<HashMap<String, HashMap<ToolCallId, String>>>,
}

/// A call noted as waiting until this is dropped, however its request ends.
pub struct Noted {
    waiting: Arc<Waiting>,
    session: String,
    call: ToolCallId,
}

impl Drop for Noted {
    fn drop(&mut self) {
        let mut sessions = self.waiting.lock();
        if let Some(calls) = sessions.get_mut(&self.session) {
            calls.remove(&self.call);
            if calls.is_empty() {
                sessions.remove(&self.session);
            }
        }
    }
}

impl Waiting {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, HashMap<ToolCallId, String>>> {
        // A panic elsewhere while the lock was held leaves a map that is
        // still whole: each change is one insert or remove.
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes `call` of `session` as waiting, to be withdrawn as `by`.
    pub fn note(self: &Arc<Self>, session: &str, call: &ToolCallId, by: &str) -> Noted {
        let mut sessions = self.lock();
        let calls = sessions.entry(session.to_owned()).or_default();
        calls.insert(call.clone(), by.to_owned());
        Noted {
            waiting: self.clone(),
            session: session.to_owned(),
            call: call.clone(),
        }
    }

    /// Withdraws every call `session` waits on; with no session, every
    /// call of every session. Waits until each is recorded.
    pub async fn withdraw(&self, engine: &Engine, session: Option<&str>, reason: &str) {
        let calls: Vec<(ToolCallId, String)> = {
            let sessions = self.lock();
            sessions
                .iter()
                .filter(|(s, _)| session.is_none_or(|wanted| wanted == s.as_str()))
                .flat_map(|(_, calls)| calls.iter().map(|(c, by)| (c.clone(), by.clone())))
                .collect()
        };
        for (call, by) in calls {
            if let Err(e) = engine.withdraw_proxied(&call, &by, reason).await {
                tracing::warn!(call = %call, error = %e, "a gone client's call could not be withdrawn");
            }
        }
    }
}

/// Standard input that cancels `closed` when it ends, so the process
/// hears of a client that closed its end at once (rmcp waits 5 s for the
/// handlers before it cancels them, and the MCP SDKs send SIGTERM after 2).
pub struct WatchedInput<R> {
    inner: R,
    closed: CancellationToken,
}

impl<R> WatchedInput<R> {
    pub fn new(inner: R, closed: CancellationToken) -> Self {
        Self { inner, closed }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for WatchedInput<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.inner).poll_read(cx, buf);
        let ended = match &read {
            Poll::Ready(Ok(())) => buf.filled().len() == before,
            Poll::Ready(Err(_)) => true,
            Poll::Pending => false,
        };
        if ended {
            self.closed.cancel();
        }
        read
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_end_of_input_is_heard_at_once() {
        use tokio::io::AsyncReadExt;
        let closed = CancellationToken::new();
        let mut input = WatchedInput::new(&b"{}\n"[..], closed.clone());
        let mut text = String::new();
        input.read_to_string(&mut text).await.unwrap();
        assert_eq!(text, "{}\n");
        assert!(closed.is_cancelled());
    }

    #[test]
    fn a_call_is_noted_until_its_request_ends() {
        let waiting = Arc::new(Waiting::default());
        let call = ToolCallId::new();
        let noted = waiting.note("s-1", &call, "builder");
        assert_eq!(waiting.lock()["s-1"][&call], "builder");
        drop(noted);
        assert!(waiting.lock().is_empty());
    }
}
