//! Background workers, each with a shutdown path.

use std::collections::HashMap;
use std::time::Duration;

use tokio::sync::watch;

/// How often lapsed approvals are looked for.
const EXPIRY_INTERVAL: Duration = Duration::from_secs(1);

/// Applies lapsed approvals' default actions, at startup (for approvals that
/// lapsed while the server was down) and then every second, until `stop`
/// turns true; and withdraws the calls of MCP clients whose process let its
/// hold lapse. The store's compare-and-set makes each expiry or withdrawal
/// happen once even with several replicas running this.
pub async fn run_expiry(engine: engine::Engine, mut stop: watch::Receiver<bool>) {
    loop {
        match engine.expire_due().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(expired = n, "applied default actions of lapsed approvals"),
            Err(e) => tracing::warn!(error = %e, "expiry pass failed; retrying"),
        }
        match engine.withdraw_unheld().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(
                withdrawn = n,
                "withdrew the calls of MCP clients whose process is gone"
            ),
            Err(e) => {
                tracing::warn!(error = %e, "withdrawing calls of gone MCP clients failed; retrying")
            }
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
        // A receiver that hangs does not hold up shutdown: a callback cut
        // short goes out again once its claim lapses.
        tokio::select! {
            delivered = engine.deliver_callbacks(&client, &secret) => if let Err(e) = delivered {
                tracing::warn!(error = %e, "callback pass failed; retrying");
            },
            _ = stop.changed() => return,
        }
        tokio::select! {
            _ = tokio::time::sleep(CALLBACK_INTERVAL) => {}
            _ = stop.changed() => return,
        }
    }
}

/// How many channels deliver at once; the others wait for the next pass.
const CHANNELS_AT_ONCE: usize = 16;

/// How long deliveries in flight may go on after `stop`: a receiver that
/// hangs does not hold up shutdown. A notice cut short is delivered again
/// once its claim lapses, by this process after a restart or a replica.
const NOTICES_GRACE: Duration = Duration::from_secs(1);

/// What a channel's task sends with.
struct Outbox {
    client: reqwest::Client,
    secret: Vec<u8>,
    base_url: String,
    mailer: Option<std::sync::Arc<engine::reviews::notices::Mailer>>,
    decide_in_slack: bool,
}

impl Outbox {
    fn sender(&self) -> engine::reviews::notices::NoticeSender<'_> {
        engine::reviews::notices::NoticeSender {
            client: &self.client,
            secret: &self.secret,
            base_url: &self.base_url,
            mailer: self.mailer.as_deref(),
            decide_in_slack: self.decide_in_slack,
        }
    }
}

/// Announces waiting calls on their channels (`notify:`), signed with
/// `secret`, with review links that start with `base_url`, until `stop`
/// turns true. Notices written before a restart go out after it. Each
/// channel delivers on a task of its own, its notices in order, so one
/// whose receiver hangs delays only its own.
pub async fn run_notices(
    engine: engine::Engine,
    secret: Vec<u8>,
    base_url: String,
    mailer: Option<std::sync::Arc<engine::reviews::notices::Mailer>>,
    decide_in_slack: bool,
    mut stop: watch::Receiver<bool>,
) {
    let outbox = std::sync::Arc::new(Outbox {
        client: reqwest::Client::new(),
        secret,
        base_url,
        mailer,
        decide_in_slack,
    });
    // Each channel's task, numbered so that a task that ended frees its
    // channel only if no newer one took it since.
    let mut busy: HashMap<String, (u64, tokio::task::JoinHandle<()>)> = HashMap::new();
    let mut started = 0u64;
    // A channel that finished its notices looks for more at once: waiting
    // for the next pass would cap it at a pass's worth per interval.
    let (done, mut freed) = tokio::sync::mpsc::unbounded_channel::<(String, u64)>();
    loop {
        busy.retain(|_, (_, task)| !task.is_finished());
        match engine.due_notices().await {
            Ok(due) => {
                for (channel, notices) in engine::reviews::notices::by_channel(due) {
                    if busy.contains_key(&channel) || busy.len() >= CHANNELS_AT_ONCE {
                        continue;
                    }
                    let (engine, outbox, done) = (engine.clone(), outbox.clone(), done.clone());
                    started += 1;
                    let ended = (channel.clone(), started);
                    let task = tokio::spawn(async move {
                        if let Err(e) = engine.deliver_in_order(outbox.sender(), notices).await {
                            tracing::warn!(error = %e, "notice delivery failed; retrying");
                        }
                        let _ = done.send(ended);
                    });
                    busy.insert(channel, (started, task));
                }
            }
            Err(e) => tracing::warn!(error = %e, "notice pass failed; retrying"),
        }
        tokio::select! {
            _ = tokio::time::sleep(CALLBACK_INTERVAL) => {}
            Some((channel, number)) = freed.recv() => {
                if busy.get(&channel).is_some_and(|(n, _)| *n == number) {
                    busy.remove(&channel);
                }
            }
            _ = stop.changed() => break,
        }
    }
    let in_flight = futures::future::join_all(busy.values_mut().map(|(_, task)| task));
    if tokio::time::timeout(NOTICES_GRACE, in_flight)
        .await
        .is_err()
    {
        tracing::info!("stopping with notices in flight: they go out again later");
        for (_, task) in busy.values() {
            task.abort();
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
