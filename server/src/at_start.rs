//! What signing in needs at start: refusing to listen beyond this machine
//! while nobody signs in, and on a fresh install with sign-in on, the
//! one-time link that adds the first administrator.

use std::net::SocketAddr;

use app::server_fns::people::SETUP_PAGE;
use app::state::AppState;
use tokio::net::TcpListener;

/// Refuses to listen beyond this machine while nobody signs in: whoever
/// reached the port could read every conversation and decide every call.
pub(crate) fn refuse_open_without_sign_in(
    state: &AppState,
    listener: &TcpListener,
) -> anyhow::Result<()> {
    let addr = listener.local_addr()?;
    if state.engine.config().auth.is_none() && !addr.ip().is_loopback() {
        anyhow::bail!(
            "listening on {addr} would let anyone who reaches it decide calls, and nobody signs in: \
             add an `auth:` block with `passwords: true` to the configuration file \
             (see docs/configuration.md), or listen on 127.0.0.1"
        );
    }
    Ok(())
}

/// The line with the setup link, while sign-in is on and nobody has been
/// added: the first administrator opens it to add themselves. The link is
/// a credential, so it is printed once, and works once, for a day.
pub(crate) async fn setup_link_line(
    state: &AppState,
    addr: SocketAddr,
) -> anyhow::Result<Option<String>> {
    if state.engine.config().auth.is_none() {
        return Ok(None);
    }
    let Some(token) = state.engine.setup_token().await? else {
        return Ok(None);
    };
    let base = state
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{addr}"));
    let link = format!("{base}{SETUP_PAGE}?token={}", token.as_str());
    tracing::warn!("nobody can sign in yet: open the setup link printed below to add the first administrator (it works once, for a day)");
    Ok(Some(format!("Set up Airlock: {link}")))
}
