use chrono::TimeZone;
use serde_json::json;

use super::*;
use crate::calls_api::ApprovalBody;

fn call(id: &str, tool: &str, created_at: &str) -> CallBody {
    CallBody {
        id: id.into(),
        conversation_id: "c1".into(),
        conversation_title: Some("Tidy the notes".into()),
        source: "demo".into(),
        tool: tool.into(),
        arguments: json!({ "path": "notes.txt" }),
        original_arguments: None,
        status: "pending_approval".into(),
        policy_reason: "write_file is listed in require_approval".into(),
        approvers: Vec::new(),
        approvals_required: 1,
        approvals: Vec::new(),
        created_at: created_at.into(),
        expires_at: None,
        decision: None,
        result: None,
        error: None,
        shadow: None,
        preview: None,
        step_up: false,
        caller: None,
    }
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 27, 10, 0, 0).unwrap()
}

#[test]
fn an_empty_list_says_so() {
    let listed = Listed {
        calls: Vec::new(),
        more: false,
    };
    assert_eq!(table(&listed, now()), "Nothing waits for a decision.\n");
}

#[test]
fn each_call_is_a_line_under_aligned_headings_with_its_wait_and_approvals() {
    let mut second = call("b2", "delete_file", "2026-11-27T07:00:00Z");
    second.approvals_required = 2;
    second.approvals = vec![ApprovalBody {
        by: "Rita".into(),
        at: "2026-11-27T09:00:00Z".into(),
    }];
    let listed = Listed {
        calls: vec![call("a1", "write_file", "2026-11-27T09:58:30Z"), second],
        more: false,
    };
    let text = table(&listed, now());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("ID  WAITING  TOOL"), "{text}");
    assert!(
        lines[1].starts_with("a1  1m       demo/write_file "),
        "{text}"
    );
    assert!(
        lines[2].contains("3h       demo/delete_file (1 of 2)"),
        "{text}"
    );
    let column = lines[0].find("ARGUMENTS").unwrap();
    assert_eq!(&lines[1][column..column + 8], "{\"path\":", "{text}");
    assert_eq!(lines[3], "2 calls wait.");
}

#[test]
fn long_arguments_are_cut_and_a_cut_list_says_how_to_narrow_it() {
    let mut long = call("a1", "write_file", "2026-11-27T09:00:00Z");
    long.arguments = json!({ "content": "x".repeat(200) });
    let listed = Listed {
        calls: vec![long],
        more: true,
    };
    let text = table(&listed, now());
    assert!(text.contains("xxx…"), "{text}");
    assert!(!text.contains(&"x".repeat(60)), "{text}");
    assert!(text.ends_with(
        "1 call waits. More wait than these: narrow the list with --source or --tool.\n"
    ));
}

#[test]
fn waits_are_short() {
    for (at, shown) in [
        ("2026-11-27T09:59:20Z", "40s"),
        ("2026-11-27T09:48:00Z", "12m"),
        ("2026-11-27T07:00:00Z", "3h"),
        ("2026-11-25T10:00:00Z", "2d"),
        ("a while ago", "?"),
    ] {
        assert_eq!(waited(at, now()), shown, "{at}");
    }
}

#[test]
fn the_agents_question_reads_as_one() {
    let mut question = call("q1", "request_human_input", "2026-11-27T09:59:00Z");
    question.source = "agent".into();
    question.arguments = json!({ "question": "Which to keep?", "type": "selection" });
    let listed = Listed {
        calls: vec![question],
        more: false,
    };
    let text = table(&listed, now());
    let line = text.lines().nth(1).unwrap();
    assert!(line.contains("question  Which to keep?"), "{text}");
}

#[test]
fn a_waiting_calls_preview_and_passkey_are_told_by_show() {
    let mut waiting = call("a1", "write_file", "2026-11-27T09:58:30Z");
    waiting.preview = Some("Changes notes.txt: 1 line added\n@@ -1,0 +2,1 @@\n+ship it".into());
    waiting.step_up = true;
    let text = super::super::show::told(&waiting, "http://localhost:3000", now());
    assert!(
        text.contains("  Approve with  your passkey, in Airlock's pages"),
        "{text}"
    );
    assert!(
        text.contains("\nPreview:\nChanges notes.txt: 1 line added\n@@ -1,0 +2,1 @@\n+ship it\n"),
        "{text}"
    );
}

#[test]
fn show_says_who_asked_for_a_call() {
    let mut asked = call("a1", "delete_file", "2026-11-27T09:58:30Z");
    asked.caller = Some(crate::calls_api::CallerBody {
        kind: "key".into(),
        name: "ci".into(),
        person: Some("olga".into()),
        groups: vec!["ops".into(), "release".into()],
    });
    let text = super::super::show::told(&asked, "http://localhost:3000", now());
    assert!(
        text.contains("  Asked by      the key ci, for olga (ops, release)\n"),
        "{text}"
    );
    asked.caller = None;
    let text = super::super::show::told(&asked, "http://localhost:3000", now());
    assert!(!text.contains("Asked by"), "{text}");
}
