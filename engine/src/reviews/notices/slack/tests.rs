use chrono::TimeZone;
use serde_json::json;

use super::*;
use crate::domain::{Diff, DiffLine, FileChange, FilePreview, Hunk};

/// A write to notes.txt whose diff adds `added` lines.
fn write(added: usize) -> ToolCall {
    let mut call = ToolCall::waiting(
        "demo",
        "write_file",
        json!({"path": "notes.txt", "content": "x"}),
    );
    let lines: Vec<DiffLine> = (0..added)
        .map(|n| DiffLine {
            tag: LineTag::Added,
            text: format!("line {n}"),
        })
        .collect();
    let diff = Diff {
        hunks: vec![Hunk {
            old_start: 0,
            old_lines: 0,
            new_start: 1,
            new_lines: added as u32,
            lines,
        }],
        added: added as u32,
        removed: 0,
        omitted: 0,
    };
    call.preview = Some(Preview::FileWrite(FilePreview {
        path: "notes.txt".into(),
        change: FileChange::New(diff),
        seen: Some("absent".into()),
        renewed: false,
    }));
    call
}

#[test]
fn a_short_diff_is_shown_whole_and_may_be_approved_in_the_message() {
    let call = write(2);
    let text = message(&call, "https://a/review", Words::of("waiting"), true)["blocks"].to_string();
    assert!(text.contains("Creates notes.txt: 2 lines added"), "{text}");
    assert!(text.contains("+ line 0\\n+ line 1"), "{text}");
    let all = [APPROVE, REJECT, "airlock_review"]
        .map(String::from)
        .to_vec();
    assert_eq!(buttons(&call), (all, false));
}

#[test]
fn a_long_diff_is_approved_on_the_review_page() {
    let call = write(PREVIEW_LINES + 1);
    let sent = message(&call, "https://a/review", Words::of("waiting"), true);
    let text = sent["blocks"].to_string();
    assert!(text.contains("Creates notes.txt: 9 lines added"), "{text}");
    assert!(!text.contains("+ line 0"), "{text}");
    assert!(
        text.contains("Its preview is too long to show here"),
        "{text}"
    );
    let rest = [REJECT, "airlock_review"].map(String::from).to_vec();
    assert_eq!(buttons(&call), (rest, true));
}

#[test]
fn a_message_says_what_waits_why_until_when_and_links_its_review() {
    let mut call = super::super::waiting_call();
    call.policy_reason = "write_file <needs> a person & a reason".into();
    call.expires_at = Some(
        chrono::Utc
            .with_ymd_and_hms(2026, 11, 26, 10, 32, 0)
            .unwrap(),
    );
    let long = "x".repeat(500);
    call.arguments =
        json!({ "a": "/srv/<plan>.txt", "b": long, "c": 1, "d": 2, "e": 3, "f": 4, "g": 5 });
    let m = message(
        &call,
        "https://airlock.example.com/review/r1?token=t",
        Words::of("waiting"),
        false,
    );
    assert_eq!(m["text"], "write_file from files waits for approval");
    let blocks = m["blocks"].as_array().unwrap();
    assert_eq!(
        blocks[0]["text"]["text"],
        "*write_file* from *files* waits for approval"
    );
    let facts = blocks[1]["fields"].as_array().unwrap();
    assert_eq!(
        facts[0]["text"],
        "*Why*\nwrite_file &lt;needs&gt; a person &amp; a reason"
    );
    assert_eq!(
        facts[1]["text"],
        "*Expires*\n<!date^1795689120^{date_short_pretty} {time}|2026-11-26 10:32 UTC>"
    );
    let args = blocks[2]["text"]["text"].as_str().unwrap();
    assert!(args.contains("`a`: /srv/&lt;plan&gt;.txt"), "{args}");
    assert!(
        args.contains(&format!("`b`: {}…", "x".repeat(120))),
        "{args}"
    );
    assert!(args.ends_with("_and 1 more_"), "{args}");
    let button = &blocks[3]["elements"][0];
    assert_eq!(
        button["url"],
        "https://airlock.example.com/review/r1?token=t"
    );
    assert_eq!(button["text"]["text"], "Review");
    assert_eq!(button["style"], "primary");
    assert_eq!(blocks[3]["elements"].as_array().unwrap().len(), 1);
}

/// The buttons of `call`'s message when the Slack app is set up, by
/// `action_id`, and whether a note says to approve on the review page.
fn buttons(call: &ToolCall) -> (Vec<String>, bool) {
    let m = message(
        call,
        "https://a.example/review/r1?token=t",
        Words::of("waiting"),
        true,
    );
    let blocks = m["blocks"].as_array().unwrap();
    let actions = blocks.last().unwrap()["elements"].as_array().unwrap();
    for button in actions
        .iter()
        .filter(|b| b["action_id"] != "airlock_review")
    {
        assert_eq!(button["value"], call.id.as_str());
    }
    let ids = actions
        .iter()
        .map(|b| b["action_id"].as_str().unwrap().to_owned())
        .collect();
    (ids, blocks.iter().any(|b| b["type"] == "context"))
}

#[test]
fn with_the_app_a_message_approves_only_what_it_shows_whole() {
    let mut call = super::super::waiting_call();
    let all = vec![
        APPROVE.to_owned(),
        REJECT.to_owned(),
        "airlock_review".into(),
    ];
    assert_eq!(buttons(&call), (all, false));
    let rest = vec![REJECT.to_owned(), "airlock_review".to_owned()];
    call.arguments = json!({ "text": "x".repeat(121) });
    assert_eq!(buttons(&call), (rest.clone(), true));
    call.arguments = json!({ "text": "two\nlines" });
    assert_eq!(buttons(&call), (rest.clone(), true));
    call.arguments = json!({ "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7 });
    assert_eq!(buttons(&call), (rest, true));
    call.source = crate::domain::AGENT_SOURCE.into();
    call.tool = crate::domain::QUESTION_TOOL.into();
    call.arguments = json!({ "question": "Which one?" });
    assert_eq!(buttons(&call), (vec!["airlock_review".to_owned()], false));
}

#[test]
fn a_settled_message_says_who_decided_and_has_no_buttons() {
    let call = super::super::waiting_call();
    let m = settled(&call, "Approved by Ana <Lima>");
    assert_eq!(m["replace_original"], true);
    assert_eq!(m["text"], "write_file from files: Approved by Ana <Lima>");
    let blocks = m["blocks"].as_array().unwrap();
    assert_eq!(
        blocks[0]["text"]["text"],
        "*write_file* from *files*: Approved by Ana &lt;Lima&gt;"
    );
    assert!(blocks.iter().all(|b| b["type"] != "actions"));
}

#[test]
fn a_call_that_needs_a_passkey_is_approved_on_its_review_page() {
    let mut call = ToolCall::waiting("ops", "deploy", json!({"to": "prod"}));
    call.step_up = true;
    let sent = message(&call, "https://a/review", Words::of("waiting"), true);
    assert!(sent["blocks"]
        .to_string()
        .contains("Approving it needs your passkey"));
    let rest = [REJECT, "airlock_review"].map(String::from).to_vec();
    assert_eq!(buttons(&call), (rest, true));
}
