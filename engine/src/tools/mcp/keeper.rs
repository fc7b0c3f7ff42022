//! Keeps one MCP server connected, in the background: connects, and when
//! the link is lost (a dead child, a closed connection, a session the
//! server forgot) makes it again, waiting longer after each failure in a
//! row, up to half a minute. Every step is logged with the source's name.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use chrono::Utc;
use rmcp::service::Peer;
use rmcp::RoleClient;
use tokio::sync::{watch, Notify};

use super::link::Link;
use super::words;
use crate::config::{Connection, SourceTimeouts};
use crate::policy::Policy;
use crate::tools::status::{SourceState, SourceStatus};
use crate::tools::ToolSpec;
use rmcp::model::ClientRequest;

/// The longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// A link that lasted this long was healthy: the next loss starts the
/// waits from the beginning.
const STEADY: Duration = Duration::from_secs(60);

/// The wait after `failures` failures in a row: none after none (a link
/// that lasted, lost), then half a second, doubling up to `MAX_BACKOFF`.
pub(super) fn backoff(failures: u32) -> Duration {
    match failures {
        0 => Duration::ZERO,
        n => (Duration::from_millis(500) * 2u32.saturating_pow(n.min(16) - 1)).min(MAX_BACKOFF),
    }
}

/// A time-out as people read it: "30 s", "0.7 s".
pub(super) fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f32())
    }
}

/// What the source's calls and its keeper share.
pub(super) struct Shared {
    pub(super) name: String,
    pub(super) connection: Connection,
    /// The server as errors name it: its URL, or "the process".
    pub(super) place: String,
    pub(super) timeouts: SourceTimeouts,
    /// The source's policy, to log how many tools it offers.
    pub(super) policy: Policy,
    live: Mutex<Live>,
    /// Rings on every change of `live`.
    changed: watch::Sender<()>,
    /// The link a call found broken, to be made again at once.
    remake: watch::Sender<Remake>,
    /// Rings when a call wants the server now, cutting a wait short.
    hurry: Notify,
}

/// A link a call found broken, and why.
#[derive(Debug, Clone, Default)]
struct Remake {
    link: u64,
    why: String,
}

/// The source as it is now.
pub(super) struct Live {
    pub(super) status: SourceStatus,
    pub(super) tools: Vec<ToolSpec>,
    pub(super) peer: Option<Peer<RoleClient>>,
    /// The number of the current link; each new link counts one up.
    pub(super) link: u64,
}

impl Shared {
    pub(super) fn new(
        name: &str,
        connection: Connection,
        timeouts: SourceTimeouts,
        policy: Policy,
    ) -> Self {
        let place = match &connection {
            Connection::Http { url, .. } => url.clone(),
            _ => "the process".to_owned(),
        };
        Self {
            name: name.to_owned(),
            connection,
            place,
            timeouts,
            policy,
            live: Mutex::new(Live {
                status: SourceStatus {
                    state: SourceState::Connecting,
                    since: Utc::now(),
                    error: None,
                    last_call_at: None,
                },
                tools: Vec::new(),
                peer: None,
                link: 0,
            }),
            changed: watch::channel(()).0,
            remake: watch::channel(Remake::default()).0,
            hurry: Notify::new(),
        }
    }

    pub(super) fn live(&self) -> MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self, state: SourceState, error: Option<String>) {
        let mut live = self.live();
        if state != SourceState::Up {
            live.peer = None;
            live.tools.clear();
        }
        live.status.state = state;
        live.status.since = Utc::now();
        live.status.error = error;
        drop(live);
        self.changed.send_replace(());
    }

    /// What rings on every change of the source's state.
    pub(super) fn changes(&self) -> watch::Receiver<()> {
        self.changed.subscribe()
    }

    /// A call succeeded.
    pub(super) fn called(&self) {
        self.live().status.last_call_at = Some(Utc::now());
        self.changed.send_replace(());
    }

    /// Waits until `ready` holds of the source, or `within` passes.
    pub(super) async fn wait_until(&self, within: Duration, ready: impl Fn(&Live) -> bool) -> bool {
        let mut changes = self.changed.subscribe();
        let waited = tokio::time::timeout(within, changes.wait_for(|_| ready(&self.live()))).await;
        matches!(waited, Ok(Ok(_)))
    }

    /// A call found link `link` broken (`why`): it is made again at once,
    /// and no other call is sent through it meanwhile.
    pub(super) fn stale(&self, link: u64, why: &str) {
        let current = {
            let live = self.live();
            live.link == link && live.status.is_up()
        };
        if current {
            self.set(SourceState::Restarting, Some(why.to_owned()));
            self.remake.send_replace(Remake {
                link,
                why: why.to_owned(),
            });
        }
    }

    /// A call wants the server: an attempt waiting out its backoff starts now.
    pub(super) fn hurry(&self) {
        self.hurry.notify_one();
    }
}

/// How often a server over HTTP is pinged while nothing else is heard: a
/// stopped server closes no pipe, so this is how it is found down.
const PING_EVERY: Duration = Duration::from_secs(10);

/// How long a ping may take.
const PING_WAIT: Duration = Duration::from_secs(5);

/// Pings a server over HTTP until it stops answering, and says why; never
/// ends for a child process, whose exit tells the same.
async fn unanswered_ping(shared: &Shared, peer: Peer<RoleClient>) -> String {
    if !matches!(shared.connection, Connection::Http { .. }) {
        return std::future::pending().await;
    }
    loop {
        tokio::time::sleep(PING_EVERY).await;
        let ping = ClientRequest::PingRequest(Default::default());
        match tokio::time::timeout(PING_WAIT, peer.send_request(ping)).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                let failure = words::call_failure(&e, &shared.place);
                // An error the server sends back is an answer.
                if failure.trouble != words::Trouble::Answered {
                    return failure.words;
                }
            }
            Err(_) => return format!("{} stopped answering", shared.place),
        }
    }
}

/// Connects, and connects again whenever the link is lost, until dropped.
pub(super) async fn keep(shared: Arc<Shared>) {
    let name = shared.name.as_str();
    let mut failures = 0u32;
    loop {
        let (ever_up, error) = {
            let live = shared.live();
            (live.link > 0, live.status.error.clone())
        };
        if ever_up {
            shared.set(SourceState::Restarting, error);
            tracing::info!(source = %name, "reconnecting");
        } else {
            shared.set(SourceState::Connecting, error);
            tracing::info!(source = %name, "connecting");
        }
        let connect = shared.timeouts.connect;
        let opened = tokio::time::timeout(connect, Link::open(name, &shared.connection)).await;
        let error = match opened {
            Ok(Ok(link)) => {
                let offered = link
                    .tools
                    .iter()
                    .filter(|t| shared.policy.is_visible(&t.name))
                    .count();
                tracing::info!(
                    source = %name,
                    "up: offers {offered} of the server's {} tools",
                    link.tools.len()
                );
                let number = {
                    let mut live = shared.live();
                    live.link += 1;
                    live.peer = Some(link.running.peer().clone());
                    live.tools = link.tools.clone();
                    live.link
                };
                shared.set(SourceState::Up, None);
                let up_at = Instant::now();
                let mut remake = shared.remake.subscribe();
                let remade = async move {
                    let why = match remake.wait_for(|stale| stale.link == number).await {
                        Ok(stale) => Some(stale.why.clone()),
                        Err(_) => None,
                    };
                    match why {
                        Some(why) => why,
                        None => std::future::pending().await,
                    }
                };
                let silent = unanswered_ping(&shared, link.running.peer().clone());
                let asked = async move {
                    tokio::select! {
                        why = remade => why,
                        why = silent => why,
                    }
                };
                let ended = link.ended(&shared.place, asked).await;
                // A link that lasted, or one a call found stale, is made
                // again at once; one that keeps dying waits longer each time.
                failures = if up_at.elapsed() >= STEADY || ended.asked {
                    0
                } else {
                    failures.saturating_add(1)
                };
                ended.words
            }
            Ok(Err(words)) => {
                failures = failures.saturating_add(1);
                words
            }
            Err(_) => {
                failures = failures.saturating_add(1);
                format!("no answer within {} (connect_timeout)", seconds(connect))
            }
        };
        let wait = backoff(failures);
        if wait.is_zero() {
            // Not down: a call waiting for the next link keeps waiting.
            tracing::warn!(source = %name, "lost: {error}");
            shared.set(SourceState::Restarting, Some(error));
            continue;
        }
        tracing::warn!(
            source = %name,
            "down: {error}; next attempt in {:.1} s",
            wait.as_secs_f32()
        );
        shared.set(SourceState::Down, Some(error));
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = shared.hurry.notified() => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_grow_from_half_a_second_to_half_a_minute() {
        let waits: Vec<f32> = (0..9).map(|n| backoff(n).as_secs_f32()).collect();
        assert_eq!(waits, [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }

    #[test]
    fn time_outs_read_in_seconds() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(700)), "0.7 s");
    }
}
