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

/// How often the callback outbox is looked at.
const CALLBACK_INTERVAL: Duration = Duration::from_millis(250);

/// Delivers review callbacks from the outbox, signed with `secret`, until
/// `stop` turns true. Callbacks written before a restart go out after it.
pub async fn run_callbacks(
    engine: engine::Engine,
    secret: Vec<u8>,
    mut stop: watch::Receiver<bool>,
) {
    let client = reqwest::Client::new();
    loop {
        if let Err(e) = engine.deliver_callbacks(&client, &secret).await {
            tracing::warn!(error = %e, "callback pass failed; retrying");
        }
        tokio::select! {
            _ = tokio::time::sleep(CALLBACK_INTERVAL) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Announces waiting calls on their channels (`notify:`), signed with
/// `secret`, with review links that start with `base_url`, until `stop`
/// turns true. Notices written before a restart go out after it.
pub async fn run_notices(
    engine: engine::Engine,
    secret: Vec<u8>,
    base_url: String,
    mailer: Option<std::sync::Arc<engine::reviews::notices::Mailer>>,
    decide_in_slack: bool,
    mut stop: watch::Receiver<bool>,
) {
    let client = reqwest::Client::new();
    let sender = engine::reviews::notices::NoticeSender {
        client: &client,
        secret: &secret,
        base_url: &base_url,
        mailer: mailer.as_deref(),
        decide_in_slack,
    };
    loop {
        if let Err(e) = engine.deliver_notices(sender).await {
            tracing::warn!(error = %e, "notice pass failed; retrying");
        }
        tokio::select! {
            _ = tokio::time::sleep(CALLBACK_INTERVAL) => {}
            _ = stop.changed() => return,
        }
    }
}

/// How often new audit entries are sealed into the chain: the longest an
/// entry stays unsealed, and so open to an unnoticed change.
const SEAL_INTERVAL: Duration = Duration::from_secs(1);

/// Seals new audit entries into the chain, at startup and then every
/// second, until `stop` turns true. Sealers on several replicas take turns.
pub async fn run_audit_seal(engine: engine::Engine, mut stop: watch::Receiver<bool>) {
    loop {
        if let Err(e) = engine.seal_audit().await {
            tracing::warn!(error = %e, "sealing the audit log failed; retrying");
        }
        tokio::select! {
            _ = tokio::time::sleep(SEAL_INTERVAL) => {}
            _ = stop.changed() => return,
        }
    }
}
