//! The wire types' own logic, without a browser.

use super::call::QUESTION_TOOL;
use super::*;

fn call(arguments: serde_json::Value, original: Option<serde_json::Value>) -> ToolCallItem {
    ToolCallItem {
        id: "call_1".into(),
        conversation_id: "conv_1".into(),
        batch_id: "batch_1".into(),
        message_seq: Some(1),
        source: "demo".into(),
        tool: "write_file".into(),
        arguments,
        original_arguments: original,
        status: "approved".into(),
        policy_reason: "write_file is listed in require_approval".into(),
        approvers: Vec::new(),
        not_by: None,
        expires_at: Some("2026-11-23T10:42:00.000Z".into()),
        decision: None,
        result: None,
        error: None,
        created_at: "2026-11-23T10:12:00.000Z".into(),
    }
}

#[test]
fn an_edit_lists_changed_added_and_removed_arguments() {
    let edited = call(
        serde_json::json!({"path": "b.md", "content": "hi", "mode": "append"}),
        Some(serde_json::json!({"path": "a.md", "content": "hi", "force": true})),
    );
    let changes = edited.argument_changes();
    let seen: Vec<_> = changes
        .iter()
        .map(|c| (c.name.as_str(), c.before.as_deref(), c.after.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            ("force", Some("true"), None),
            ("mode", None, Some("\"append\"")),
            ("path", Some("\"a.md\""), Some("\"b.md\"")),
        ]
    );
    assert!(call(serde_json::json!({"path": "a"}), None)
        .argument_changes()
        .is_empty());
}

#[test]
fn typed_arguments_must_be_a_json_object() {
    assert_eq!(
        parse_arguments(r#"{"path": "x"}"#),
        Ok(serde_json::json!({"path": "x"}))
    );
    assert!(parse_arguments("[1]").unwrap_err().contains("JSON object"));
    assert!(parse_arguments("{\"path\": ")
        .unwrap_err()
        .starts_with("not valid JSON"));
}

#[test]
fn times_read_in_utc_and_questions_offer_their_choices() {
    let c = call(serde_json::json!({}), None);
    assert_eq!(
        c.expires_label().as_deref(),
        Some("expires 2026-11-23 10:42 UTC")
    );
    assert_eq!(time_label("garbage"), "garbage");
    let mut q = call(
        serde_json::json!({"question": "Which?", "choices": ["a", 3, "b"]}),
        None,
    );
    (q.tool, q.source) = (QUESTION_TOOL.into(), "agent".into());
    assert!(q.is_question());
    assert_eq!(
        (q.question(), q.choices()),
        ("Which?".into(), vec!["a".into(), "b".into()])
    );
}

#[test]
fn ages_read_naturally() {
    assert_eq!(ago(3), "just now");
    assert_eq!(ago(60), "1 min ago");
    assert_eq!(ago(600), "10 min ago");
    assert_eq!(ago(3600), "1 hour ago");
    assert_eq!(ago(4 * 3600), "4 hours ago");
    assert_eq!(ago(100_000), "yesterday");
    assert_eq!(ago(3 * 86_400), "3 days ago");
}
