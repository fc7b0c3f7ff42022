//! Startup's last part: the workers, then the pages and APIs served until
//! shutdown, then the workers stopped in turn.

use std::future::Future;

use tokio::net::TcpListener;

use engine::agent::run_worker;

use crate::{at_start, build, model_check, router, workers, Services, Settings};

/// Serves Airlock on `listener` until `shutdown` completes.
pub async fn launch(
    settings: Settings,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let services = build(&settings).await?;
    // A JSON log keeps standard output to itself, for its collector.
    let json = crate::telemetry::LogSettings::from_env().is_ok_and(|log| log.json);
    let ready = if json { Ready::Stderr } else { Ready::Stdout };
    run(services, listener, shutdown, ready).await
}

/// Where the line saying Airlock is ready goes: standard output, which
/// scripts and tests read, or standard error when standard output is an
/// MCP client's channel (`airlock mcp --config`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ready {
    Stdout,
    Stderr,
}

impl Ready {
    fn say(self, line: &str) {
        match self {
            Ready::Stdout => println!("{line}"),
            Ready::Stderr => eprintln!("{line}"),
        }
    }
}

/// Serves the built `services` on `listener`, with every worker, until
/// `shutdown` completes.
pub async fn run(
    services: Services,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
    ready: Ready,
) -> anyhow::Result<()> {
    let Services {
        state,
        agent,
        callback_secret,
        doors,
        model_server,
        mailer,
    } = services;
    at_start::refuse_open_without_sign_in(&state, &listener)?;
    let store = state.engine.store().backend();
    let taken = state.engine.take_over_at_start().await?;
    if taken.runs > 0 {
        tracing::warn!(
            runs = taken.runs,
            "took over runs left by a process that stopped abruptly"
        );
    }
    if taken.running_calls > 0 {
        tracing::warn!(
            calls = taken.running_calls,
            "failed the MCP clients' calls left running by a process that stopped abruptly"
        );
    }
    if taken.held_calls > 0 {
        tracing::warn!(
            calls = taken.held_calls,
            "withdrew the MCP clients' calls left waiting by a process that stopped abruptly"
        );
    }
    let (stop_workers, workers_stop) = tokio::sync::watch::channel(false);
    let expiry = tokio::spawn(workers::run_expiry(
        state.engine.clone(),
        workers_stop.clone(),
    ));
    let seal = tokio::spawn(workers::run_audit_seal(
        state.engine.clone(),
        workers_stop.clone(),
    ));
    let addr = listener.local_addr()?;
    let base_url = state
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{addr}"));
    let notices = tokio::spawn(workers::run_notices(
        state.engine.clone(),
        callback_secret.clone(),
        base_url,
        mailer,
        doors.slack.is_some(),
        workers_stop.clone(),
    ));
    let callbacks = tokio::spawn(workers::run_callbacks(
        state.engine.clone(),
        callback_secret,
        workers_stop.clone(),
    ));
    let relay = {
        let engine = state.engine.clone();
        let stop = workers_stop.clone();
        tokio::spawn(async move {
            if let Err(e) = engine.follow_feed(stop).await {
                tracing::error!(error = %e, "cannot follow the shared event feed; the approvals inbox and other replicas' changes do not stream live");
            }
        })
    };
    if let Some(model) = model_server {
        let reach = state.model_reach.clone();
        tokio::spawn(model_check::keep_asking(model, reach, workers_stop.clone()));
    }
    let runner = tokio::spawn(run_worker(agent, workers_stop));
    let events = state.engine.events().clone();
    // Beside the ready line, rather than in a log line a log collector
    // would keep.
    if let Some(line) = at_start::setup_link_line(&state, addr).await? {
        ready.say(&line);
    }
    let app = router(state, doors);
    tracing::info!(%addr, store, "listening");
    // The line scripts and tests wait for; keep its shape.
    ready.say(&format!("Airlock is ready at http://{addr}"));
    let listener = without_nagle(listener);
    // Each request knows its client's address: failed sign-ins are held
    // back per client.
    let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            // Open event streams would hold the graceful shutdown forever.
            events.close();
        })
        .await?;
    let _ = stop_workers.send(true);
    let _ = expiry.await;
    let _ = seal.await;
    let _ = callbacks.await;
    let _ = notices.await;
    let _ = relay.await;
    let _ = runner.await;
    Ok(())
}

/// `listener`, its connections sending each reply as soon as it is written,
/// not held back for the client's acknowledgement of the previous segment
/// (Nagle): a reply written in two parts (a file's head, then its body)
/// would otherwise wait for the client's delayed ACK, 40 ms on Linux.
pub fn without_nagle(
    listener: TcpListener,
) -> axum::serve::TapIo<TcpListener, fn(&mut tokio::net::TcpStream)> {
    axum::serve::ListenerExt::tap_io(listener, no_delay)
}

fn no_delay(tcp: &mut tokio::net::TcpStream) {
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!(error = %e, "cannot turn off Nagle's algorithm");
    }
}
