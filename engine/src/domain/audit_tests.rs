use chrono::TimeZone;

use super::*;

fn entry(id: i64, reason: &str) -> AuditEntry {
    AuditEntry {
        id,
        at: Utc.timestamp_millis_opt(1_790_000_000_000 + id).unwrap(),
        action: "approve".into(),
        actor: "rita".into(),
        channel: "chat".into(),
        call: Some(format!("call-{id}")),
        conversation: Some("conv".into()),
        source: Some("files".into()),
        tool: Some("delete_file".into()),
        detail: format!(r#"{{"arguments":{{"path":"/tmp/a"}},"reason":"{reason}"}}"#),
        seal: None,
    }
}

/// Seals entries one after another, as the store does.
fn chain(entries: &[AuditEntry]) -> Vec<AuditLine> {
    let mut prev = GENESIS.to_owned();
    let mut lines = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let line = e.sealed_as(i as i64 + 1, &prev);
        prev = line.hash.clone();
        lines.push(line);
    }
    lines
}

fn first_break(lines: &[AuditLine], mut check: ChainCheck) -> Result<u64, ChainBreak> {
    for line in lines {
        check.check(line)?;
    }
    Ok(check.checked)
}

fn three() -> Vec<AuditLine> {
    chain(&[entry(1, "ok"), entry(2, "fine"), entry(3, "sure")])
}

#[test]
fn an_untouched_chain_verifies() {
    assert_eq!(first_break(&three(), ChainCheck::from_start()), Ok(3));
}

#[test]
fn a_line_survives_export_and_reading_back_byte_for_byte() {
    for line in three() {
        let text = serde_json::to_string(&line).unwrap();
        let read: AuditLine = serde_json::from_str(&text).unwrap();
        assert_eq!(read.computed_hash(), line.hash);
        assert_eq!(serde_json::to_string(&read).unwrap(), text);
        // The canonical form is the exported line without its hash.
        let hash = format!(r#","hash":"{}""#, line.hash);
        assert_eq!(line.canonical(), text.replace(&hash, ""));
    }
}

#[test]
fn a_changed_entry_is_named() {
    let mut lines = three();
    let mut changed = entry(2, "because I said so");
    changed.seal = None;
    let forged = changed.line_with(2, lines[1].prev.clone(), lines[1].hash.clone());
    lines[1] = forged;
    assert_eq!(
        first_break(&lines, ChainCheck::from_start()),
        Err(ChainBreak::Changed { seq: 2, id: 2 })
    );
}

#[test]
fn a_changed_entry_with_its_hash_made_again_breaks_the_next_link() {
    let mut lines = three();
    lines[1] = entry(2, "rewritten").sealed_as(2, &lines[0].hash);
    assert_eq!(
        first_break(&lines, ChainCheck::from_start()),
        Err(ChainBreak::Unlinked {
            seq: 3,
            id: 3,
            after: 2
        })
    );
}

#[test]
fn a_removed_or_reordered_entry_is_named() {
    let lines = three();
    let removed = vec![lines[0].clone(), lines[2].clone()];
    assert_eq!(
        first_break(&removed, ChainCheck::from_start()),
        Err(ChainBreak::OutOfPlace {
            seq: 3,
            id: 3,
            after: 1
        })
    );
    let swapped = vec![lines[1].clone(), lines[0].clone()];
    assert_eq!(
        first_break(&swapped, ChainCheck::from_start()),
        Err(ChainBreak::OutOfPlace {
            seq: 2,
            id: 2,
            after: 0
        })
    );
}

#[test]
fn an_export_from_later_in_the_chain_starts_on_trust() {
    let lines = three();
    assert_eq!(first_break(&lines[1..], ChainCheck::from_anywhere()), Ok(2));
    assert_eq!(
        first_break(&lines[1..], ChainCheck::from_start()),
        Err(ChainBreak::OutOfPlace {
            seq: 2,
            id: 2,
            after: 0
        })
    );
}

#[test]
fn detail_that_is_not_json_still_hashes_as_a_string() {
    let mut odd = entry(1, "x");
    odd.detail = "not json".into();
    let line = odd.sealed_as(1, GENESIS);
    assert_eq!(line.detail.get(), r#""not json""#);
    assert_eq!(first_break(&[line], ChainCheck::from_start()), Ok(1));
}
