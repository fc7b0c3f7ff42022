//! The audit over HTTP and from the terminal: administrators and viewers
//! export it as a chain of JSON Lines, and `airlock audit verify` names the
//! first entry changed behind the database's back, or in an exported file.

use std::process::{Command, Output};

use engine::domain::{Access, AuditLine, ChainCheck};
use reqwest::redirect::Policy;
use reqwest::Client;
use serde_json::Value;

use crate::support;

use support::people::{code, get_as, post_as, signed_in_as, waiting_deletes, CONFIG};

/// The lines of an export answer.
async fn lines(res: reqwest::Response) -> Vec<AuditLine> {
    assert_eq!(res.status(), 200);
    let kind = res.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(kind.starts_with("application/x-ndjson"), "{kind}");
    let body = res.text().await.unwrap();
    body.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn administrators_and_viewers_export_the_audit_as_a_chain() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let ana = signed_in_as(&server, &client, "ana", Access::Approver).await;
    let vic = signed_in_as(&server, &client, "vic", Access::Viewer).await;
    let conversation = server.engine.create_conversation().await.unwrap();
    let calls = waiting_deletes(&server, &conversation.id, 2).await;
    let approve = [("call_id", calls[0].id.as_str())];
    assert_eq!(
        post_as(&server, &client, &ana, "approve_call", &approve)
            .await
            .status(),
        200
    );
    let reject = [("call_id", calls[1].id.as_str()), ("reason", "not today")];
    assert_eq!(
        post_as(&server, &client, &ana, "reject_call", &reject)
            .await
            .status(),
        200
    );

    // An approver decides, but does not read the audit; nobody signed in
    // is asked to.
    let refused = get_as(&server, &client, &ana, "/api/v1/audit").await;
    assert_eq!(code(refused).await, (403, "not_allowed".into()));
    let anonymous = client
        .get(server.url("/api/v1/audit"))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);

    let all = lines(get_as(&server, &client, &vic, "/api/v1/audit").await).await;
    let mut check = ChainCheck::from_start();
    for line in &all {
        check.check(line).unwrap();
    }
    let actions: Vec<&str> = all.iter().map(|l| l.action.as_str()).collect();
    assert_eq!(actions, ["propose", "propose", "approve", "reject"]);
    let rejected = &all[3];
    assert_eq!(rejected.actor, "ANA");
    assert_eq!(rejected.channel, "chat");
    assert_eq!(rejected.tool.as_deref(), Some("delete_file"));
    let detail: Value = serde_json::from_str(rejected.detail.get()).unwrap();
    assert_eq!(detail["reason"], "not today");
    assert_eq!(detail["arguments"]["path"], "notes.txt");

    // A page after a place in the chain.
    let page = get_as(&server, &client, &vic, "/api/v1/audit?after=1&limit=2").await;
    let seqs: Vec<i64> = lines(page).await.iter().map(|l| l.seq).collect();
    assert_eq!(seqs, [2, 3]);
    for bad in ["?limit=0", "?limit=1001", "?after=-1", "?after=first"] {
        let res = get_as(&server, &client, &vic, &format!("/api/v1/audit{bad}")).await;
        assert_eq!(code(res).await, (400, "invalid_query".into()), "{bad}");
    }

    // A personal token reads it too, without a cookie.
    let made = post_as(
        &server,
        &client,
        &vic,
        "create_api_token",
        &[("label", "export")],
    )
    .await;
    let made: Value = made.json().await.unwrap();
    let by_token = client
        .get(server.url("/api/v1/audit"))
        .bearer_auth(made["secret"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(lines(by_token).await.len(), 4);
}

fn verify(data_dir: &std::path::Path, file: Option<&std::path::Path>) -> Output {
    let mut words = vec!["verify"];
    if let Some(file) = file {
        words.extend(["--file", file.to_str().unwrap()]);
    }
    audit(data_dir, &words)
}

/// `airlock audit WORDS` over the store in `data_dir`.
fn audit(data_dir: &std::path::Path, words: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_airlock"))
        .arg("audit")
        .args(words)
        .env("AIRLOCK_DATA_DIR", data_dir)
        .env("AIRLOCK_CONFIG", data_dir.join("airlock.yaml"))
        .env_remove("AIRLOCK_DATABASE_URL")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn verify_names_the_entry_changed_behind_the_databases_back() {
    let dir = tempfile::tempdir().unwrap();
    let config = "sources:\n  demo:\n    require_approval: [delete_file]\n";
    let server = support::start(dir.path(), config, &[], support::Workers::default()).await;
    let conversation = server.engine.create_conversation().await.unwrap();
    let calls = waiting_deletes(&server, &conversation.id, 3).await;
    let client = Client::new();
    for call in &calls {
        let res = client
            .post(server.url("/api/fn/reject_call"))
            .header("accept", "application/json")
            .header("origin", &server.base)
            .form(&[("call_id", call.id.as_str()), ("reason", "no")])
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
    let export = client
        .get(server.url("/api/v1/audit"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(export.lines().count(), 6);
    let file = dir.path().join("audit.jsonl");
    std::fs::write(&file, &export).unwrap();

    let whole = verify(dir.path(), None);
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    assert!(
        text(&whole.stdout).contains("entries 1 to 6"),
        "{}",
        text(&whole.stdout)
    );
    let whole_file = verify(dir.path(), Some(&file));
    assert!(whole_file.status.success(), "{}", text(&whole_file.stderr));

    // An operator with a database shell drops the trigger and rewrites a
    // rejection's reason.
    let db = rusqlite::Connection::open(dir.path().join("airlock.db")).unwrap();
    db.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    db.execute_batch(
        "drop trigger audit_log_no_update;
         update audit_log set detail = replace(detail, '\"no\"', '\"yes, approved\"') where seq = 5;",
    )
    .unwrap();
    let broken = verify(dir.path(), None);
    assert_eq!(broken.status.code(), Some(1));
    let said = text(&broken.stderr);
    assert!(said.contains("entry 5 (audit id"), "{said}");
    assert!(said.contains("was changed"), "{said}");

    // The same in an exported file, and a line taken out of it.
    let changed = export.replacen("\"actor\":\"local user\"", "\"actor\":\"mallory\"", 1);
    assert_ne!(changed, export, "the export names the local person");
    std::fs::write(&file, &changed).unwrap();
    let said = text(&verify(dir.path(), Some(&file)).stderr);
    assert!(said.contains("entry 4 (audit id"), "{said}");
    let mut rest: Vec<&str> = export.lines().collect();
    rest.remove(1);
    std::fs::write(&file, rest.join("\n")).unwrap();
    let said = text(&verify(dir.path(), Some(&file)).stderr);
    assert!(said.contains("entry 3 (audit id"), "{said}");
    assert!(said.contains("comes after entry 1"), "{said}");
}

#[tokio::test]
async fn a_head_kept_elsewhere_catches_entries_removed_from_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let config = "sources:\n  demo:\n    require_approval: [delete_file]\n";
    let server = support::start(dir.path(), config, &[], support::Workers::default()).await;
    let conversation = server.engine.create_conversation().await.unwrap();
    waiting_deletes(&server, &conversation.id, 3).await;
    let client = Client::new();
    let export = client
        .get(server.url("/api/v1/audit"))
        .send()
        .await
        .unwrap();
    let export = export.text().await.unwrap();
    assert_eq!(export.lines().count(), 3, "{export}");
    let file = dir.path().join("audit.jsonl");
    std::fs::write(&file, &export).unwrap();

    let head = audit(dir.path(), &["head"]);
    assert!(head.status.success(), "{}", text(&head.stderr));
    let head = text(&head.stdout).trim().to_owned();
    let last: AuditLine = serde_json::from_str(export.lines().last().unwrap()).unwrap();
    assert_eq!(head, format!("3:{}", last.hash));
    let reached = audit(dir.path(), &["verify", "--head", &head]);
    assert!(reached.status.success(), "{}", text(&reached.stderr));
    assert!(text(&reached.stdout).contains("reaches the head kept before, entry 3"));

    // Someone with a database shell drops the delete trigger and removes
    // the newest entry: the chain alone still checks, the kept head not.
    let db = rusqlite::Connection::open(dir.path().join("airlock.db")).unwrap();
    db.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    db.execute_batch("drop trigger audit_log_no_delete; delete from audit_log where seq = 3;")
        .unwrap();
    let whole = verify(dir.path(), None);
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    let caught = audit(dir.path(), &["verify", "--head", &head]);
    assert_eq!(caught.status.code(), Some(1));
    let said = text(&caught.stderr);
    assert!(said.contains("ends at entry 2, before entry 3"), "{said}");

    // An export cut short the same way, and a head that is not one.
    let cut: Vec<&str> = export.lines().take(2).collect();
    std::fs::write(&file, cut.join("\n")).unwrap();
    let file = file.to_str().unwrap();
    let caught = audit(dir.path(), &["verify", "--file", file, "--head", &head]);
    assert_eq!(caught.status.code(), Some(1));
    assert!(text(&caught.stderr).contains("before entry 3"));
    let wrong = format!("2:{}", last.hash);
    let caught = audit(dir.path(), &["verify", "--file", file, "--head", &wrong]);
    assert!(text(&caught.stderr).contains("entry 2 is not the entry whose hash was kept"));
    let bad = audit(dir.path(), &["verify", "--head", "3"]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("SEQ:HASH"),
        "{}",
        text(&bad.stderr)
    );
}

#[tokio::test]
async fn the_audit_page_reads_a_page_at_a_time_for_whoever_may_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let ana = signed_in_as(&server, &client, "ana", Access::Approver).await;
    let ada = signed_in_as(&server, &client, "ada", Access::Admin).await;
    let conversation = server.engine.create_conversation().await.unwrap();
    waiting_deletes(&server, &conversation.id, 60).await;

    let refused = get_as(&server, &client, &ana, "/api/fn/list_audit").await;
    assert_eq!(code(refused).await, (403, "not_allowed".into()));
    let page = get_as(&server, &client, &ada, "/api/fn/list_audit").await;
    let first: Value = page.json().await.unwrap();
    assert_eq!(first["items"].as_array().unwrap().len(), 50);
    let older = first["older"].as_str().expect("a cursor to older entries");
    let page = get_as(
        &server,
        &client,
        &ada,
        &format!("/api/fn/list_audit?older={older}"),
    )
    .await;
    let second: Value = page.json().await.unwrap();
    assert_eq!(second["items"].as_array().unwrap().len(), 10);
    assert!(second["older"].is_null());
    let newest_of_second = second["items"][0]["id"].as_i64().unwrap();
    assert!(newest_of_second < first["items"][49]["id"].as_i64().unwrap());

    // The page of the audit itself, rendered for an administrator.
    let html = get_as(&server, &client, &ada, "/audit?outcome=propose").await;
    let html = html.text().await.unwrap();
    assert!(html.contains("Asked for approval"), "{html}");
    assert!(html.contains("Older entries"), "{html}");
    let shut = get_as(&server, &client, &ana, "/audit")
        .await
        .text()
        .await
        .unwrap();
    assert!(shut.contains("your access does not allow this"), "{shut}");
    for bad in ["?older=soon", "?from=26-11-2026"] {
        let res = get_as(&server, &client, &ada, &format!("/api/fn/list_audit{bad}")).await;
        assert_eq!(code(res).await, (400, "invalid".into()), "{bad}");
    }
}
