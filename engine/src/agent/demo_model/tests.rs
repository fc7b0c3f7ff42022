//! The demo model: which message proposes which calls, and how it answers their results.

use super::*;
use rstest::rstest;

fn user(text: &str) -> Turn {
    Turn::User { text: text.into() }
}

fn tools(reply: &ModelReply) -> Vec<(String, Value)> {
    reply
        .calls
        .iter()
        .map(|c| (c.tool.clone(), c.arguments.clone()))
        .collect()
}

#[rstest]
#[case("list files", "list_directory", json!({"path": "."}))]
#[case("List drafts", "list_directory", json!({"path": "drafts"}))]
#[case("read notes.txt", "read_file", json!({"path": "notes.txt"}))]
#[case("delete drafts/plan.md", "delete_file", json!({"path": "drafts/plan.md"}))]
#[case("write ideas.md: ship it: today", "write_file", json!({"path": "ideas.md", "content": "ship it: today"}))]
#[case("email ana@example.com: lunch at one", "send_email", json!({"to": "ana@example.com", "subject": "A note from Airlock", "body": "lunch at one"}))]
#[case("clean up", "list_directory", json!({"path": "."}))]
#[case("ask me which file to keep", "request_human_input", json!({"question": "Which file to keep?"}))]
#[case("ask me which file to keep: notes.txt or todo.md", "request_human_input", json!({"question": "Which file to keep?", "choices": ["notes.txt", "todo.md"]}))]
#[case("let me choose which to keep: a.txt or b.txt", "request_human_input", json!({"question": "Which to keep?", "type": "selection", "context": {"options": [{"id": "a.txt", "label": "a.txt"}, {"id": "b.txt", "label": "b.txt"}]}}))]
#[case("let me pick which to delete: a.txt, b.txt or c.txt", "request_human_input", json!({"question": "Which to delete?", "type": "selection", "context": {"options": [{"id": "a.txt", "label": "a.txt"}, {"id": "b.txt", "label": "b.txt"}, {"id": "c.txt", "label": "c.txt"}], "min_selected": 1, "max_selected": 3}}))]
fn phrases_become_calls(#[case] text: &str, #[case] tool: &str, #[case] args: Value) {
    assert_eq!(tools(&respond(&[user(text)])), [(tool.to_owned(), args)]);
}

#[test]
fn two_deletes_are_one_batch() {
    let reply = respond(&[user("delete notes.txt and todo.md")]);
    let paths: Vec<_> = reply
        .calls
        .iter()
        .map(|c| c.arguments["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["notes.txt", "todo.md"]);
    assert!(reply.calls.iter().all(|c| c.tool == "delete_file"));
}

#[test]
fn an_email_to_several_people_is_one_batch_of_one_email_each() {
    let reply = respond(&[user("email ana@example.com and bo@example.com: at one")]);
    let to: Vec<_> = reply
        .calls
        .iter()
        .map(|c| {
            (
                c.tool.as_str(),
                c.arguments["to"].as_str().unwrap(),
                c.arguments["body"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        to,
        [
            ("send_email", "ana@example.com", "at one"),
            ("send_email", "bo@example.com", "at one")
        ]
    );
    assert!(respond(&[user("email : hi")]).calls.is_empty());
}

#[test]
fn anything_else_gets_help() {
    let reply = respond(&[user("what can you do?")]);
    assert!(reply.calls.is_empty());
    assert!(reply.text.contains("list files"));
}

fn done(tool: &str, arguments: Value, outcome: CallOutcome) -> TranscriptCall {
    TranscriptCall {
        id: "call_1".into(),
        tool: tool.into(),
        arguments,
        outcome,
    }
}

#[test]
fn clean_up_deletes_what_the_listing_found_in_one_batch() {
    let listing = done(
        "list_directory",
        json!({"path": "."}),
        CallOutcome::Completed {
            result: json!({"files": [{"path": "a.txt"}, {"path": "drafts/b.md"}]}),
            edited_from: None,
        },
    );
    let turns = [
        user("clean up"),
        Turn::Assistant {
            text: String::new(),
            calls: vec![listing],
        },
    ];
    let reply = respond(&turns);
    assert_eq!(
        tools(&reply),
        [
            ("delete_file".to_owned(), json!({"path": "a.txt"})),
            ("delete_file".to_owned(), json!({"path": "drafts/b.md"}))
        ]
    );
}

#[test]
fn after_results_it_reports_and_acknowledges_rejections_without_retrying() {
    let turns = [
        user("delete a.txt and b.txt"),
        Turn::Assistant {
            text: String::new(),
            calls: vec![
                done(
                    "delete_file",
                    json!({"path": "a.txt"}),
                    CallOutcome::Completed {
                        result: json!({}),
                        edited_from: None,
                    },
                ),
                done(
                    "delete_file",
                    json!({"path": "b.txt"}),
                    CallOutcome::Rejected {
                        reason: Some("b is the backup".into()),
                    },
                ),
            ],
        },
    ];
    let reply = respond(&turns);
    assert!(reply.calls.is_empty(), "no retry: {reply:?}");
    assert!(reply.text.contains("I deleted a.txt."));
    assert!(reply
        .text
        .contains("You rejected deleting b.txt (\"b is the backup\")"));
}

#[tokio::test]
async fn text_streams_in_pieces() {
    let pieces = std::sync::Mutex::new(Vec::new());
    let request = ModelRequest {
        turns: vec![user("hello")],
        tools: vec![],
    };
    let reply = DemoModel
        .reply(&request, &|p| {
            if let Progress::Text(text) = p {
                pieces.lock().unwrap().push(text.to_owned())
            }
        })
        .await
        .unwrap();
    let pieces = pieces.into_inner().unwrap();
    assert!(pieces.len() > 5);
    assert_eq!(pieces.concat(), reply.text);
}

#[tokio::test]
async fn calls_stream_as_a_real_model_s_do() {
    let calls = std::sync::Mutex::new(Vec::new());
    let request = ModelRequest {
        turns: vec![user("delete a.txt and b.txt")],
        tools: vec![],
    };
    DemoModel
        .reply(&request, &|p| {
            if let Progress::Call {
                index,
                name,
                arguments,
            } = p
            {
                calls
                    .lock()
                    .unwrap()
                    .push((index, name.map(str::to_owned), arguments.to_owned()))
            }
        })
        .await
        .unwrap();
    let calls = calls.into_inner().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].0, 1);
    assert_eq!(calls[1].1.as_deref(), Some("delete_file"));
    assert_eq!(calls[1].2, r#"{"path":"b.txt"}"#);
}

/// The form it asks with is one the review page and the chat's card can
/// draw: read as the protocol's form without a problem.
#[test]
fn a_form_to_fill_in_is_a_valid_form_of_one_step() {
    let reply = respond(&[user("let me fill in a new file")]);
    let [(tool, arguments)] = tools(&reply).try_into().unwrap();
    assert_eq!(tool, "request_human_input");
    assert_eq!(arguments["question"], "Fill in a new file.");
    assert_eq!(arguments["type"], "input");
    let form = crate::domain::Form::parse(&arguments["context"]["form"], "context.form").unwrap();
    assert_eq!(form.steps.len(), 1);
    let keys: Vec<_> = form.fields().map(|f| f.key.as_str()).collect();
    assert_eq!(keys, ["path", "content", "replace"]);
}
