//! `airlock policy replay`: every call of a window of history (the store
//! the environment names, as `airlock serve` opens it) decided again under
//! a candidate configuration, and what would have gone otherwise: counts
//! of each change (ask → allow, allow → deny, …) with a few calls of each.
//! Nothing is changed or run.

use anyhow::Context;
use engine::config::replay::ReplayReport;
use engine::config::Config;
use engine::domain::ToolCallId;

use crate::Settings;

/// Calls read from the store at a time.
const PAGE: i64 = 500;

/// Replays the calls of the last `since` under the configuration
/// `candidate`, called `name` in the report.
pub async fn replay(candidate: Config, name: String, since: &str) -> anyhow::Result<u8> {
    let window = match engine::policy::duration::parse_expiry(since) {
        Ok(Some(window)) => window,
        _ => anyhow::bail!("--since {since}: give a window such as 24h or 7d"),
    };
    let window = chrono::Duration::from_std(window).context("--since is too long")?;
    let settings = Settings::from_env()?;
    // Replay reads history: an empty store made here would say "nothing
    // changes" of a store that was never found.
    if let Ok(Some(file)) = engine::store::sqlite_path(&settings.database_url) {
        anyhow::ensure!(
            std::path::Path::new(file).exists(),
            "there is no store at {file}: set AIRLOCK_DATA_DIR or AIRLOCK_DATABASE_URL to the server's"
        );
    }
    let store = crate::open_store(&settings).await?;
    let mut report = ReplayReport::default();
    let from = chrono::Utc::now() - window;
    let mut after: Option<ToolCallId> = None;
    loop {
        let page = store.calls_since(from, after.as_ref(), PAGE).await?;
        let Some(last) = page.last() else { break };
        after = Some(last.id.clone());
        for call in &page {
            report.add(&candidate, call);
        }
    }
    print!("{}", described(&report, since, &name));
    Ok(0)
}

/// The report for a person.
fn described(report: &ReplayReport, since: &str, name: &str) -> String {
    let changed: usize = report.changes.values().map(|c| c.count).sum();
    let mut text = format!(
        "Replayed the {} calls of the last {since} under {name}: {}.\n",
        report.replayed,
        match changed {
            0 => "none would have been decided otherwise".to_owned(),
            1 => "1 would have been decided otherwise".to_owned(),
            n => format!("{n} would have been decided otherwise"),
        }
    );
    for ((was, now), change) in &report.changes {
        text.push_str(&format!("  {was} → {now}: {}\n", change.count));
        for (call, reason) in &change.examples {
            text.push_str(&format!(
                "    {} from {} {} ({}): {reason}\n",
                call.tool,
                call.source,
                call.original_arguments.as_ref().unwrap_or(&call.arguments),
                call.created_at.format("%Y-%m-%d %H:%M UTC"),
            ));
        }
    }
    text
}
