//! The `airlock` command: `airlock serve` (the default) starts the server:
//! tracing, settings, then `launch` with graceful shutdown.

use anyhow::Context;
use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

// Serving a request allocates and frees many small buffers across threads,
// which glibc's allocator does slowly (a tenth of the gateway's CPU time).
// The allocator holds no state of ours.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Airlock: a human approval layer for AI agents' tool calls. Settings come
/// from AIRLOCK_* environment variables (see docs/configuration.md).
#[derive(Debug, Parser)]
#[command(name = "airlock", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the web app, the HITL API and the agent (the default).
    Serve,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve().await,
    }
}

async fn serve() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_env("AIRLOCK_LOG")
                .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn")),
        )
        .init();
    let settings = server::Settings::from_env()?;
    let listener = tokio::net::TcpListener::bind(settings.addr)
        .await
        .with_context(|| format!("cannot listen on {}", settings.addr))?;
    server::launch(settings, listener, shutdown_signal()).await
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
