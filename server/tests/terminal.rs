//! The people's terminal commands against a real server: `airlock pending`,
//! `show`, `approve` and `reject` run as the real binary, acting as the
//! person of a personal API token, with the exit codes scripts rely on.

use crate::support;

use std::process::Output;
use std::time::Duration;

use engine::domain::{
    Access, CallStatus, Channel, ProposedCall, ToolCallId, AGENT_SOURCE, QUESTION_TOOL,
};
use engine::people::NewPerson;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};

use support::people::{waiting_deletes, CONFIG};
use support::TestServer;

/// Adds `name` with `access`; a personal token of theirs.
async fn token_of(server: &TestServer, name: &str, access: Access) -> String {
    let person = server
        .engine
        .add_person(NewPerson {
            name: name.into(),
            display_name: name.to_uppercase(),
            access,
            password: None,
            email: None,
        })
        .await
        .unwrap();
    let made = server
        .engine
        .create_api_token(&person.id, "terminal")
        .await
        .unwrap();
    made.secret
}

fn airlock(base: &str, token: Option<&str>, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_airlock"));
    command
        .args(args)
        .env("AIRLOCK_URL", base)
        .env_remove("AIRLOCK_TOKEN")
        .kill_on_drop(true);
    if let Some(token) = token {
        command.env("AIRLOCK_TOKEN", token);
    }
    command
}

/// Runs `airlock args…` as the holder of `token`.
async fn run(server: &TestServer, token: Option<&str>, args: &[&str]) -> Output {
    airlock(&server.base, token, args).output().await.unwrap()
}

fn says(out: &Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn a_person_lists_shows_and_decides_from_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let ana = token_of(&server, "ana", Access::Approver).await;
    let bob = token_of(&server, "bob", Access::Approver).await;
    let conversation = server.engine.create_conversation().await.unwrap();
    let calls = waiting_deletes(&server, &conversation.id, 3).await;
    let ids: Vec<String> = calls.iter().map(|c| c.id.to_string()).collect();

    let (code, table, _) = says(&run(&server, Some(&ana), &["pending"]).await);
    assert_eq!(code, 0, "{table}");
    assert!(table.starts_with("ID "), "{table}");
    for id in &ids {
        assert!(table.contains(&format!("{id}  ")), "{table}");
    }
    assert!(table.contains("demo/delete_file"), "{table}");
    assert!(table.ends_with("3 calls wait.\n"), "{table}");

    let (code, json, _) = says(&run(&server, Some(&ana), &["pending", "--json"]).await);
    assert_eq!(code, 0);
    let listed: Value = serde_json::from_str(&json).unwrap();
    let listed: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ids);

    let (code, shown, _) = says(&run(&server, Some(&ana), &["show", &ids[0]]).await);
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.starts_with("delete_file from demo: waiting for a decision\n"),
        "{shown}"
    );
    assert!(shown.contains("\"path\": \"notes.txt\""), "{shown}");

    // Approved here, it is an ordinary decision, taken from the terminal.
    let (code, said, _) = says(&run(&server, Some(&ana), &["approve", &ids[0]]).await);
    assert_eq!((code, said.as_str()), (0, "Approved delete_file.\n"));
    let approved = stored(&server, &ids[0]).await;
    let decision = approved.decision.unwrap();
    assert_eq!(
        (decision.by.as_str(), decision.channel),
        ("ANA", Channel::Cli)
    );
    let (_, shown, _) = says(&run(&server, Some(&bob), &["show", &ids[0]]).await);
    assert!(
        shown.contains("Approved by ANA at ") && shown.contains(", from the terminal"),
        "{shown}"
    );

    // Someone else came first: exit 3, with who and where it stands.
    let (code, _, error) = says(&run(&server, Some(&bob), &["approve", &ids[0]]).await);
    assert_eq!(code, 3, "{error}");
    assert!(error.contains("already decided by ANA"), "{error}");

    let reject = ["reject", &ids[1], "--reason", "not today"];
    let (code, said, _) = says(&run(&server, Some(&bob), &reject).await);
    assert_eq!(
        (code, said.as_str()),
        (0, "Rejected delete_file: not today\n")
    );
    let rejected = stored(&server, &ids[1]).await;
    assert_eq!(rejected.status, CallStatus::Rejected);
    assert_eq!(
        rejected.decision.unwrap().reason.as_deref(),
        Some("not today")
    );

    let edit = [
        "approve",
        &ids[2],
        "--edit",
        r#"{"path": "old.txt"}"#,
        "--json",
    ];
    let (code, json, error) = says(&run(&server, Some(&ana), &edit).await);
    assert_eq!(code, 0, "{error}");
    let edited: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(edited["arguments"]["path"], "old.txt");
    assert_eq!(edited["original_arguments"]["path"], "notes.txt");
    assert_eq!(edited["decision"]["channel"], "cli");

    let (code, table, _) = says(&run(&server, Some(&ana), &["pending"]).await);
    assert_eq!(
        (code, table.as_str()),
        (0, "Nothing waits for a decision.\n")
    );
}

#[tokio::test]
async fn refusals_have_exit_codes_a_script_can_tell_apart() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let vic = token_of(&server, "vic", Access::Viewer).await;
    let ana = token_of(&server, "ana", Access::Approver).await;
    let conversation = server.engine.create_conversation().await.unwrap();
    let call = waiting_deletes(&server, &conversation.id, 1)
        .await
        .remove(0);
    let id = call.id.to_string();

    let (code, _, error) = says(&run(&server, None, &["pending"]).await);
    assert_eq!(code, 4, "{error}");
    assert!(error.contains("set AIRLOCK_TOKEN"), "{error}");
    let wrong = format!("{ana}x");
    let (code, _, error) = says(&run(&server, Some(&wrong), &["pending"]).await);
    assert_eq!(code, 4, "{error}");
    assert!(error.contains("refused the token"), "{error}");

    // A viewer reads, and may not decide.
    let (code, _, _) = says(&run(&server, Some(&vic), &["show", &id]).await);
    assert_eq!(code, 0);
    let (code, _, error) = says(&run(&server, Some(&vic), &["approve", &id]).await);
    assert_eq!(code, 4, "{error}");
    assert!(error.contains("does not allow"), "{error}");

    let unknown = ToolCallId::new().to_string();
    let (code, _, error) = says(&run(&server, Some(&ana), &["show", &unknown]).await);
    assert_eq!(code, 1, "{error}");
    assert!(error.contains("not found"), "{error}");
    let not_an_object = ["approve", &id, "--edit", "[1, 2]"];
    let (code, _, error) = says(&run(&server, Some(&ana), &not_an_object).await);
    assert_eq!(code, 1, "{error}");
    assert!(error.contains("JSON object"), "{error}");
    assert_eq!(
        stored(&server, &id).await.status,
        CallStatus::PendingApproval
    );

    let (code, _, error) = says(&run(&server, Some(&ana), &["reject", &id]).await);
    assert_eq!(code, 64, "a reason is asked for: {error}");
    let mut away = airlock("http://127.0.0.1:9", Some(&ana), &["pending"]);
    let (code, _, error) = says(&away.output().await.unwrap());
    assert_eq!(code, 69, "{error}");
    assert!(
        error.contains("cannot reach Airlock at http://127.0.0.1:9"),
        "{error}"
    );
}

#[tokio::test]
async fn watching_lists_again_when_a_call_comes_to_wait_and_when_it_is_decided() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let ana = token_of(&server, "ana", Access::Approver).await;
    let mut watching = airlock(&server.base, Some(&ana), &["pending", "--watch", "--json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(watching.stdout.take().unwrap()).lines();
    assert!(next_listing(&mut lines).await.is_empty());
    let conversation = server.engine.create_conversation().await.unwrap();
    let call = waiting_deletes(&server, &conversation.id, 1)
        .await
        .remove(0);
    let listed = next_listing(&mut lines).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], call.id.to_string());
    let id = call.id.to_string();
    let (code, said, _) = says(&run(&server, Some(&ana), &["approve", &id]).await);
    assert_eq!(code, 0, "{said}");
    assert!(next_listing(&mut lines).await.is_empty());
    watching.kill().await.unwrap();
}

#[tokio::test]
async fn the_agents_questions_are_answered_from_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let ana = token_of(&server, "ana", Access::Approver).await;
    let conversation = server.engine.create_conversation().await.unwrap();
    let question = |arguments: Value| ProposedCall {
        source: AGENT_SOURCE.into(),
        tool: QUESTION_TOOL.into(),
        arguments,
        read_only_hint: false,
    };
    let options = json!([{"id": "a", "label": "a.txt"}, {"id": "b", "label": "b.txt"}]);
    let asked = server
        .engine
        .propose_calls(
            &conversation.id,
            vec![
                question(json!({"question": "Which branch?"})),
                question(json!({"question": "Which to keep?", "type": "selection",
                    "context": {"options": options}})),
            ],
        )
        .await
        .unwrap();
    let (plain, typed) = (asked[0].id.to_string(), asked[1].id.to_string());
    let answer = |args: &'static [&'static str], id: &str| {
        let mut all = vec!["answer", id];
        all.extend_from_slice(args);
        all.into_iter().map(str::to_owned).collect::<Vec<String>>()
    };
    let run_as_ana = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let command = airlock(&server.base, Some(&ana), &args).output();
        async move { says(&command.await.unwrap()) }
    };

    let (code, _, error) = says(&run(&server, Some(&ana), &["approve", &plain]).await);
    assert_eq!(code, 1);
    assert!(
        error.contains("airlock answer"),
        "approve says how: {error}"
    );

    let (code, said, _) = run_as_ana(answer(&["main"], &plain)).await;
    assert_eq!((code, said.trim()), (0, "Answered: main"));
    assert_eq!(
        stored(&server, &plain).await.result,
        Some(json!({"answer": "main"}))
    );
    let (code, _, error) = run_as_ana(answer(&["again"], &plain)).await;
    assert_eq!(code, 3, "answered already: {error}");

    // A typed question takes its action and data, checked as on its page.
    let (code, _, error) = run_as_ana(answer(&["b"], &typed)).await;
    assert_eq!(code, 1);
    assert!(error.contains("selection"), "{error}");
    let (code, _, error) = run_as_ana(answer(
        &["--action", "select", "--data", r#"{"selected": ["c"]}"#],
        &typed,
    ))
    .await;
    assert_eq!(code, 1, "an option it does not offer: {error}");
    let (code, said, _) = run_as_ana(answer(
        &[
            "--action",
            "select",
            "--data",
            r#"{"selected": ["b"]}"#,
            "--json",
        ],
        &typed,
    ))
    .await;
    assert_eq!(code, 0, "{said}");
    let call: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(call["result"]["action"], "select", "{call}");
    assert_eq!(call["result"]["data"]["selected"], json!(["b"]), "{call}");
    assert_eq!(
        stored(&server, &typed).await.decision.unwrap().channel,
        Channel::Cli
    );

    let (code, _, error) = run_as_ana(answer(&[], &plain)).await;
    assert_eq!(code, 64, "neither words nor an action: {error}");
}

/// The next listing `airlock pending --watch --json` prints.
async fn next_listing(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
) -> Vec<Value> {
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("a listing within 30 s")
        .unwrap()
        .expect("a line");
    serde_json::from_str(&line).unwrap()
}

async fn stored(server: &TestServer, id: &str) -> engine::domain::ToolCall {
    let id = ToolCallId::parse(id).unwrap();
    server.engine.tool_call(&id).await.unwrap()
}
