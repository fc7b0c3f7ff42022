//! `airlock audit verify`: checks the audit chain of the database the
//! settings name, or of a file exported from `GET /api/v1/audit`, and names
//! the first entry that was changed, removed or moved. It only reads.
//! `airlock audit head` prints the chain's head to keep elsewhere; `verify
//! --head` then catches what the chain alone cannot: entries removed from
//! its end.

use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context};
use engine::clock::SystemClock;
use engine::domain::{AuditLine, ChainCheck, KeptHead};
use engine::Engine;

use crate::Settings;

/// Checks the database's chain and says what it found; an error when it
/// is broken.
pub async fn verify_database(settings: &Settings, kept: Option<KeptHead>) -> anyhow::Result<()> {
    let report = reading(settings).await?.verify_audit(kept.clone()).await?;
    if let Some(broken) = report.broken {
        bail!(
            "the audit chain is broken after {} good entries: {broken}",
            report.checked
        );
    }
    match &report.head {
        Some((seq, hash)) => {
            println!("the audit chain is whole: entries 1 to {seq}, the last with hash {hash}")
        }
        None => println!("the audit chain is empty"),
    }
    if let Some(kept) = kept {
        println!("it reaches the head kept before, entry {}", kept.seq);
    }
    if report.unsealed > 0 {
        println!(
            "{} newer entries are not sealed yet (a running server seals them within a second)",
            report.unsealed
        );
    }
    Ok(())
}

/// Prints the head of the database's chain as `SEQ:HASH`, once the whole
/// chain checks: what to keep outside Airlock for `verify --head`.
pub async fn print_head(settings: &Settings) -> anyhow::Result<()> {
    let report = reading(settings).await?.verify_audit(None).await?;
    if let Some(broken) = report.broken {
        bail!("the audit chain is broken, so it has no head to keep: {broken}");
    }
    let Some((seq, hash)) = report.head else {
        bail!("the audit chain is empty: there is no head to keep yet");
    };
    println!("{}", KeptHead { seq, hash });
    Ok(())
}

/// An engine over the settings' store, only to read it.
async fn reading(settings: &Settings) -> anyhow::Result<Engine> {
    let store = crate::open_store(settings).await?;
    Ok(Engine::new(
        store,
        Arc::new(SystemClock),
        Default::default(),
    ))
}

/// Checks an exported file's chain. A file that starts later in the chain
/// is taken from its first entry on trust, and says so.
pub fn verify_file(path: &Path, kept: Option<KeptHead>) -> anyhow::Result<()> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut check: Option<ChainCheck> = None;
    for (number, text) in std::io::BufReader::new(file).lines().enumerate() {
        let text = text.with_context(|| format!("cannot read {}", path.display()))?;
        if text.trim().is_empty() {
            continue;
        }
        let line: AuditLine = serde_json::from_str(&text)
            .with_context(|| format!("{}:{}: not an audit entry", path.display(), number + 1))?;
        let check = check.get_or_insert_with(|| {
            let check = match line.seq {
                1 => ChainCheck::from_start(),
                _ => ChainCheck::from_anywhere(),
            };
            check.reaching(kept.clone())
        });
        if let Err(broken) = check.check(&line) {
            bail!(
                "{}:{}: the audit chain is broken: {broken}",
                path.display(),
                number + 1
            );
        }
    }
    let Some(check) = check else {
        if let Some(kept) = kept {
            bail!(
                "{} holds no audit entries, so not entry {} whose hash was kept",
                path.display(),
                kept.seq
            );
        }
        println!("{} holds no audit entries", path.display());
        return Ok(());
    };
    if let Err(broken) = check.finish() {
        bail!("{}: the audit chain is broken: {broken}", path.display());
    }
    let (first, (last, hash)) = (check.first.unwrap_or(0), check.head().unwrap_or((0, "")));
    println!(
        "the audit chain in {} is whole: entries {first} to {last}, the last with hash {hash}",
        path.display()
    );
    if first > 1 {
        println!("it starts at entry {first}: the entries before it are not in the file, so its first entry is taken on trust");
    }
    Ok(())
}
