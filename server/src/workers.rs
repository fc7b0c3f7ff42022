//! Background workers, each with a shutdown path.

use std::time::Duration;

use tokio::sync::watch;

/// How often lapsed approvals are looked for.
const EXPIRY_INTERVAL: Duration = Duration::from_secs(1);

/// Applies lapsed approvals' default actions, at startup (for approvals that
/// lapsed while the server was down) and then every second, until `stop`
/// turns true. The store's compare-and-set makes each expiry happen once even
/// with several replicas running this.
pub async fn run_expiry(engine: engine::Engine, mut stop: watch::Receiver<bool>) {
    loop {
        match engine.expire_due().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(expired = n, "applied default actions of lapsed approvals"),
            Err(e) => tracing::warn!(error = %e, "expiry pass failed; retrying"),
        }
        tokio::select! {
            _ = tokio::time::sleep(EXPIRY_INTERVAL) => {}
            _ = stop.changed() => return,
        }
    }
}
