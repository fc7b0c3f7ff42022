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
        quorum: QuorumItem::default(),
        step_up: false,
        caller: None,
        expires_at: Some("2026-11-23T10:42:00.000Z".into()),
        announced: Vec::new(),
        decision: None,
        result: None,
        error: None,
        preview: None,
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

#[test]
fn a_message_names_its_writer_to_everyone_but_them() {
    let message = |written_by: Option<PersonRefItem>| MessageItem {
        id: "msg_1".into(),
        seq: 1,
        author: Author::User,
        content: "delete notes.txt".into(),
        written_by,
        html: None,
        created_at: "2026-11-23T10:42:00.000Z".into(),
    };
    let ana = PersonRefItem {
        id: "person_ana".into(),
        name: "Ana Lima".into(),
    };
    let signed = message(Some(ana));
    assert_eq!(signed.writer_label(Some("person_ana")), "You");
    assert_eq!(signed.writer_label(Some("person_bo")), "Ana Lima");
    assert_eq!(signed.writer_label(None), "Ana Lima");
    // Written when nobody signed in: the one local person.
    assert_eq!(message(None).writer_label(Some("person_bo")), "You");
    let json = serde_json::to_value(&signed).unwrap();
    assert_eq!(json["author"]["name"], "Ana Lima");
    assert_eq!(json["role"], "user");
}

#[test]
fn the_cards_show_each_person_what_they_may_do() {
    let waiting = |approvers: &[&str], not_by: Option<&str>| ToolCallItem {
        status: "pending_approval".into(),
        approvers: approvers.iter().map(|g| g.to_string()).collect(),
        not_by: not_by.map(str::to_owned),
        ..call(serde_json::json!({}), None)
    };
    let person = |may_decide: bool, groups: &[&str]| Deciding {
        may_decide,
        person_id: Some("person_ana".into()),
        groups: groups.iter().map(|g| g.to_string()).collect(),
        name: None,
    };
    let wait = |text: &str| MayDo::Wait(text.to_owned());
    assert_eq!(
        Deciding::anyone().may_do(&waiting(&[], None)),
        MayDo::Decide
    );
    assert_eq!(
        person(true, &[]).may_do(&waiting(&["ops", "sec"], None)),
        wait("Waiting for ops or sec")
    );
    assert_eq!(
        person(true, &["sec"]).may_do(&waiting(&["ops", "sec"], None)),
        MayDo::Decide
    );
    assert_eq!(
        person(false, &["ops"]).may_do(&waiting(&["ops"], None)),
        wait("Waiting for ops")
    );
    assert_eq!(
        person(false, &[]).may_do(&waiting(&[], None)),
        wait("Waiting for an approver")
    );
    let own = waiting(&["ops"], Some("person_ana"));
    assert_eq!(person(true, &["ops"]).may_do(&own), MayDo::RefuseOnly);
    assert!(!person(true, &["ops"]).may_approve(&own));
    assert!(person(true, &["ops"]).may_refuse(&own));
    assert!(person(true, &["ops"]).may_approve(&waiting(&["ops"], Some("person_bo"))));
    assert!(!person(false, &["ops"]).may_refuse(&waiting(&["ops"], None)));
}

/// The cards' rule is a copy of the engine's, which refuses what the cards
/// would not offer: over every combination, both give the same answer.
#[cfg(feature = "ssr")]
#[test]
fn the_cards_and_the_engine_agree_on_who_may_decide() {
    use engine::domain::{Access, Actor, PersonId, Refusal};
    let ana = PersonId::new();
    let group_sets: [&[&str]; 4] = [&[], &["ops"], &["dev"], &["ops", "dev"]];
    for access in [Access::Admin, Access::Approver, Access::Viewer] {
        for groups in group_sets {
            for approvers in group_sets {
                for not_by in [None, Some(ana.clone()), Some(PersonId::new())] {
                    let actor = Actor {
                        id: ana.clone(),
                        display_name: "Ana".into(),
                        access,
                        groups: groups.iter().map(|g| g.to_string()).collect(),
                    };
                    let item = ToolCallItem {
                        status: "pending_approval".into(),
                        approvers: approvers.iter().map(|g| g.to_string()).collect(),
                        not_by: not_by.as_ref().map(ToString::to_string),
                        ..call(serde_json::json!({}), None)
                    };
                    let mut engine_call: engine::domain::ToolCall =
                        serde_json::from_value(sample_engine_call()).unwrap();
                    engine_call.approvers = item.approvers.clone();
                    engine_call.not_by = not_by.clone();
                    let deciding = Deciding {
                        may_decide: access.may(engine::domain::Action::Decide),
                        person_id: Some(ana.to_string()),
                        groups: actor.groups.clone(),
                        name: None,
                    };
                    let expected = match actor.may_decide(&engine_call, true) {
                        Ok(()) => "decide",
                        Err(Refusal::OwnRequest) => "refuse only",
                        Err(_) => "wait",
                    };
                    let shown = match deciding.may_do(&item) {
                        MayDo::Decide => "decide",
                        MayDo::RefuseOnly => "refuse only",
                        MayDo::ApprovedAlready => "approved already",
                        MayDo::Wait(_) => "wait",
                    };
                    assert_eq!(
                        shown, expected,
                        "{access:?} {groups:?} {approvers:?} {not_by:?}"
                    );
                }
            }
        }
    }
}

/// An engine tool call as JSON, for the check above.
#[cfg(feature = "ssr")]
fn sample_engine_call() -> serde_json::Value {
    serde_json::json!({
        "id": engine::domain::ToolCallId::new().to_string(),
        "conversation_id": engine::domain::ConversationId::new().to_string(),
        "batch_id": engine::domain::BatchId::new().to_string(),
        "run_id": null,
        "message_seq": null,
        "position": 0,
        "source": "demo",
        "tool": "delete_file",
        "arguments": {},
        "original_arguments": null,
        "status": "pending_approval",
        "policy_reason": "test",
        "expires_at": null,
        "default_action": "reject",
        "decision": null,
        "result": null,
        "error": null,
        "created_at": "2026-11-23T10:42:00Z",
        "updated_at": "2026-11-23T10:42:00Z"
    })
}

/// The card's preview of a folder grant says the rule the engine makes.
#[cfg(feature = "ssr")]
#[test]
fn the_cards_folder_preview_is_the_engines_rule() {
    use engine::domain::{GrantArgumentChoice, GrantArguments};
    for arguments in [
        serde_json::json!({ "path": "drafts/plan.md", "content": "x" }),
        serde_json::json!({ "path": "notes.txt" }),
        serde_json::json!({ "path": "/srv/files/a/b.txt" }),
        serde_json::json!({ "url": "https://example.com/a/b", "n": 1 }),
        serde_json::json!({ "to": "ana@example.com" }),
        serde_json::json!([1, 2]),
    ] {
        let item = call(arguments.clone(), None);
        let engine = GrantArguments::chosen(GrantArgumentChoice::SameFolder, &arguments)
            .map(|rule| rule.words());
        assert_eq!(item.folder_rule(), engine, "{arguments}");
    }
}

#[test]
fn a_call_that_needs_two_says_who_approved_and_who_may_still() {
    let rita = ApprovalItem {
        by: "Rita".into(),
        by_id: Some("person_rita".into()),
        at: "2026-11-23T10:02:00.000Z".into(),
    };
    let waiting = ToolCallItem {
        status: "pending_approval".into(),
        approvers: vec!["ops".into()],
        quorum: QuorumItem {
            required: 2,
            approvals: vec![rita.clone()],
        },
        ..call(serde_json::json!({}), None)
    };
    assert_eq!(
        waiting.quorum_label().as_deref(),
        Some("1 of 2 approvals: Rita 10:02 · needs 1 more, from ops, not Rita")
    );
    let done = ToolCallItem {
        status: "approved".into(),
        ..waiting.clone()
    };
    assert_eq!(
        done.quorum_label().as_deref(),
        Some("1 of 2 approvals: Rita 10:02")
    );
    assert_eq!(call(serde_json::json!({}), None).quorum_label(), None);
    let edited = ToolCallItem {
        original_arguments: Some(serde_json::json!({"path": "a"})),
        ..waiting.clone()
    };
    assert_eq!(
        edited.quorum_label().as_deref(),
        Some("1 of 2 approvals since the edit: Rita 10:02 · needs 1 more, from ops, not Rita")
    );

    let person = |id: &str| Deciding {
        may_decide: true,
        person_id: Some(id.into()),
        groups: vec!["ops".into()],
        name: None,
    };
    assert_eq!(
        person("person_rita").may_do(&waiting),
        MayDo::ApprovedAlready
    );
    assert_eq!(person("person_sam").may_do(&waiting), MayDo::Decide);
    // Approve all leaves the call she approved already to someone else.
    assert!(!person("person_rita").may_approve(&waiting));
    assert!(person("person_rita").may_refuse(&waiting));
    // Nobody signs in: the local person is known by name.
    let local = Deciding {
        name: Some("Rita".into()),
        ..Deciding::anyone()
    };
    let by_name = ToolCallItem {
        quorum: QuorumItem {
            required: 2,
            approvals: vec![ApprovalItem {
                by_id: None,
                ..rita
            }],
        },
        approvers: Vec::new(),
        ..waiting
    };
    assert_eq!(local.may_do(&by_name), MayDo::ApprovedAlready);
}

/// A decision's line names who took it, and Slack when it was taken there.
#[cfg(feature = "ssr")]
#[test]
fn a_decision_taken_in_slack_says_so_on_the_card() {
    let mut engine_call = sample_engine_call();
    engine_call["status"] = serde_json::json!("rejected");
    engine_call["decision"] = serde_json::json!({
        "kind": "reject", "by": "Ana Lima", "at": "2026-11-23T10:43:00Z",
        "reason": "not on a Friday", "channel": "slack",
    });
    let item: ToolCallItem = serde_json::from_value(engine_call.clone()).unwrap();
    assert_eq!(
        item.decision_text().as_deref(),
        Some("Rejected by Ana Lima in Slack: not on a Friday")
    );
    engine_call["decision"]["channel"] = serde_json::json!("chat");
    let item: ToolCallItem = serde_json::from_value(engine_call).unwrap();
    assert_eq!(
        item.decision_text().as_deref(),
        Some("Rejected by Ana Lima: not on a Friday")
    );
}

#[test]
fn a_forms_answer_reads_as_its_labels_and_values_but_a_sensitive_one() {
    let asked = serde_json::json!({
        "question": "Details?",
        "type": "input",
        "context": {"form": {"steps": [
            {"fields": [{"key": "path", "label": "File name", "type": "text"}]},
            {"fields": [
                {"key": "salary", "label": "Salary", "type": "number", "sensitive": true},
                {"key": "replace", "label": "Replace", "type": "boolean"},
            ]},
        ]}},
    });
    let answered = ToolCallItem {
        tool: "request_human_input".into(),
        result: Some(serde_json::json!({"action": "submit", "data": {
            "replace": false, "path": "ideas.md", "salary": 105000,
        }})),
        ..call(asked, None)
    };
    assert_eq!(
        answered.answer().as_deref(),
        Some("File name: ideas.md; Salary: (not shown); Replace: false")
    );
    let chosen = ToolCallItem {
        result: Some(serde_json::json!({"action": "select", "data": {"selected": ["a"]}})),
        ..call(
            serde_json::json!({"type": "selection", "context": {"options": [{"id": "a", "label": "A file"}]}}),
            None,
        )
    };
    assert_eq!(chosen.answer().as_deref(), Some("A file"));
    assert!(chosen.answer_notes().is_empty(), "the choice is the answer");
}

/// An approval answered with changes requested says so, with what the
/// person wrote and each edit: an earlier round's card is what the next
/// round's reviewer reads.
#[test]
fn an_answers_feedback_and_edits_are_shown_beside_it() {
    let edited = ToolCallItem {
        tool: "request_human_input".into(),
        result: Some(serde_json::json!({"action": "edit", "data": {
            "feedback": "Warmer, please",
            "edits": {"title": "Scaling with Kubernetes"},
            "edit_instructions": ["Name the platform", "Add a metric"],
        }})),
        ..call(serde_json::json!({"type": "approval"}), None)
    };
    assert_eq!(edited.answer().as_deref(), Some("changes requested"));
    // In the order the answer gives them.
    assert_eq!(
        edited.answer_notes(),
        [
            ("Feedback".to_owned(), "Warmer, please".to_owned()),
            (
                "Changed title".to_owned(),
                "Scaling with Kubernetes".to_owned()
            ),
            (
                "Edit instructions".to_owned(),
                "Name the platform\nAdd a metric".to_owned()
            ),
        ]
    );
}

#[test]
fn a_hunk_says_where_it_is_in_words() {
    let hunk = |old_start, old_lines, new_start, new_lines| HunkItem {
        old_start,
        old_lines,
        new_start,
        new_lines,
        lines: Vec::new(),
    };
    assert_eq!(hunk(3, 3, 3, 4).place(), "Lines 3–5 become lines 3–6");
    assert_eq!(hunk(1, 3, 1, 1).place(), "Lines 1–3 become line 1");
    assert_eq!(hunk(0, 0, 1, 2).place(), "New lines 1–2");
    assert_eq!(hunk(4, 1, 3, 0).place(), "Removed line 4");
    assert_eq!(hunk(1, 1, 1, 1).place(), "Line 1 becomes line 1");
}

#[cfg(feature = "ssr")]
#[test]
fn every_kind_of_preview_reads_from_the_engines_json() {
    use engine::domain::{CommandPreview, Diff, DryRunPreview, FileChange, FilePreview, Preview};
    let previews = [
        Preview::FileWrite(FilePreview {
            path: "a.md".into(),
            change: FileChange::New(Diff::default()),
            seen: Some("absent".into()),
            renewed: false,
        }),
        Preview::FileWrite(FilePreview {
            path: "a.md".into(),
            change: FileChange::TooLarge { bytes: 300_000 },
            seen: None,
            renewed: false,
        }),
        Preview::DryRun(DryRunPreview {
            output: "ok".into(),
            diff: Some(Diff::default()),
            failed: false,
            seen: Some("x".into()),
            renewed: false,
        }),
        Preview::Command(CommandPreview {
            command: "ls".into(),
            folder: None,
            steps: Vec::new(),
            warnings: vec!["w".into()],
        }),
    ];
    for preview in previews {
        let json = serde_json::to_value(&preview).unwrap();
        let read: PreviewItem =
            serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{e}: {json}"));
        assert_eq!(serde_json::to_value(&read).unwrap()["kind"], json["kind"]);
    }
}

#[test]
fn a_commands_steps_say_how_they_join() {
    let step = |then: Option<&str>| CommandStepItem {
        program: "cat".into(),
        arguments: Vec::new(),
        redirects: Vec::new(),
        then: then.map(str::to_owned),
    };
    assert_eq!(
        step(Some("|")).then_words().unwrap(),
        " and passes its output to the next (|)"
    );
    assert_eq!(
        step(Some("&&")).then_words().unwrap(),
        " then, if it succeeds, (&&)"
    );
    assert_eq!(step(None).then_words(), None);
}

#[test]
fn a_remote_agent_s_approved_call_is_not_said_to_have_run_here() {
    let ran = ToolCallItem {
        status: "completed".into(),
        ..call(serde_json::json!({}), None)
    };
    assert_eq!(ran.status_label(), "Completed");
    let handed = ToolCallItem {
        caller: Some(CallerRef {
            kind: "agent".into(),
        }),
        ..ran
    };
    assert_eq!(handed.status_label(), "Approved · the agent runs it");
}
