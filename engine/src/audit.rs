//! The audit log as people read it: a page at a time with filters, an
//! export in chain order, the seal that chains new entries, and the check
//! that the chain is whole. Entries are written by the changes they record,
//! in the store, in the same transactions.

use crate::core::Core;
use crate::domain::{AuditLine, AuditPage, AuditQuery, ChainBreak, ChainCheck, KeptHead};
use crate::error::EngineError;

/// Entries on one page of the audit.
pub const AUDIT_PAGE: i64 = 50;

/// Most entries one export request returns.
pub const EXPORT_LIMIT: i64 = 1000;

/// Entries sealed in one transaction: few enough that the writer is not
/// held from decisions for long (SQLite has one).
const SEAL_BATCH: i64 = 100;

/// Entries read at once when checking the chain.
const CHECK_BATCH: i64 = 1000;

/// What a check of the whole chain found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainReport {
    /// Sealed entries checked, up to the first broken one.
    pub checked: u64,
    /// The last entry checked: its place and hash, to compare with a copy
    /// kept elsewhere.
    pub head: Option<(i64, String)>,
    /// The first broken entry, if any.
    pub broken: Option<ChainBreak>,
    /// Entries written but not sealed yet (sealing runs every second).
    pub unsealed: i64,
}

/// Seals every entry not sealed yet; how many.
pub(crate) async fn seal(core: &Core) -> Result<u64, EngineError> {
    let mut sealed = 0;
    loop {
        let n = core.audit().seal_audit(SEAL_BATCH).await?;
        sealed += n;
        if n < SEAL_BATCH as u64 {
            return Ok(sealed);
        }
    }
}

/// One page of entries, newest first.
pub(crate) async fn page(core: &Core, query: &AuditQuery) -> Result<AuditPage, EngineError> {
    let mut entries = core.audit().audit_entries(query, AUDIT_PAGE + 1).await?;
    let more = entries.len() > AUDIT_PAGE as usize;
    entries.truncate(AUDIT_PAGE as usize);
    let older = more.then(|| entries.last().map(|e| e.id)).flatten();
    Ok(AuditPage { entries, older })
}

/// Up to `limit` (at most [`EXPORT_LIMIT`]) entries after place `after` in
/// the chain, sealing what was written until now first, so an export is
/// complete to the moment it was asked for.
pub(crate) async fn export(
    core: &Core,
    after: i64,
    limit: i64,
) -> Result<Vec<AuditLine>, EngineError> {
    seal(core).await?;
    let limit = limit.clamp(1, EXPORT_LIMIT);
    let entries = core.audit().audit_chain(after.max(0), limit).await?;
    Ok(entries.iter().filter_map(|e| e.line()).collect())
}

/// Checks the whole chain from its first entry, reading only: each
/// entry's hash against its contents, and each link to the entry before.
/// With `kept`, the chain must also reach that head with its hash.
pub(crate) async fn verify(
    core: &Core,
    kept: Option<KeptHead>,
) -> Result<ChainReport, EngineError> {
    let mut check = ChainCheck::from_start().reaching(kept);
    let mut broken = None;
    let mut after = 0;
    'chain: loop {
        let entries = core.audit().audit_chain(after, CHECK_BATCH).await?;
        for entry in &entries {
            let Some(line) = entry.line() else { continue };
            if let Err(e) = check.check(&line) {
                broken = Some(e);
                break 'chain;
            }
            after = line.seq;
        }
        if entries.len() < CHECK_BATCH as usize {
            break;
        }
    }
    if broken.is_none() {
        broken = check.finish().err();
    }
    Ok(ChainReport {
        checked: check.checked,
        head: check.head().map(|(seq, hash)| (seq, hash.to_owned())),
        broken,
        unsealed: core.audit().unsealed_audit().await?,
    })
}
