//! Grants ("Always allow") through the engine: until revoked, for a time,
//! and for a folder.

use super::*;

#[tokio::test]
async fn always_allow_grants_until_revoked() {
    let f = Fixture::new().await;
    let here = f.conversation().await;
    let there = f.conversation().await;
    let first = f
        .propose(&here, &[("delete_file", json!({"path": "a"}))])
        .await
        .remove(0);
    let mut grants_list = f.engine.events().subscribe_grants();
    f.engine
        .decide(
            &first.id,
            Verdict::AlwaysAllow {
                everywhere: false,
                lasts: None,
                arguments: Default::default(),
            },
            &chat("ana"),
        )
        .await
        .unwrap();
    assert!(
        grants_list.has_changed().unwrap(),
        "a grant is news to its list"
    );
    grants_list.mark_unchanged();
    let next = f
        .propose(&here, &[("delete_file", json!({"path": "b"}))])
        .await
        .remove(0);
    assert_eq!(
        (next.status, next.policy_reason.as_str()),
        (CallStatus::Approved, "always allowed: delete_file")
    );
    // The grant is scoped to its conversation.
    let elsewhere = f
        .propose(&there, &[("delete_file", json!({"path": "c"}))])
        .await
        .remove(0);
    assert_eq!(elsewhere.status, CallStatus::PendingApproval);
    let grants = f.engine.grants().await.unwrap();
    assert_eq!(grants.len(), 1);
    let entries = f.engine.grant_entries().await.unwrap();
    assert_eq!(entries[0].grant, grants[0]);
    assert_eq!(
        entries[0].conversation_title.as_deref(),
        Some("New conversation")
    );
    let revoked = f.engine.revoke_grant(&grants[0].id, None).await.unwrap();
    assert!(grants_list.has_changed().unwrap(), "so is a revocation");
    grants_list.mark_unchanged();
    assert_eq!(
        f.engine.revoke_grant(&grants[0].id, None).await.unwrap(),
        revoked
    );
    grants_list.mark_unchanged();
    assert!(matches!(
        f.engine.revoke_grant(&GrantId::new(), None).await,
        Err(EngineError::NotFound("grant"))
    ));
    assert!(
        !grants_list.has_changed().unwrap(),
        "an unknown grant changes nothing"
    );
    let after = f
        .propose(&here, &[("delete_file", json!({"path": "d"}))])
        .await
        .remove(0);
    assert_eq!(after.status, CallStatus::PendingApproval);
}

#[tokio::test]
async fn a_grant_for_an_hour_lets_calls_run_for_an_hour() {
    let f = Fixture::new().await;
    let here = f.conversation().await;
    let first = f
        .propose(&here, &[("delete_file", json!({"path": "a"}))])
        .await
        .remove(0);
    let hour = chrono::Duration::hours(1);
    f.engine
        .decide(
            &first.id,
            Verdict::AlwaysAllow {
                everywhere: false,
                lasts: Some(hour),
                arguments: Default::default(),
            },
            &chat("ana"),
        )
        .await
        .unwrap();
    let grant = f.engine.grants().await.unwrap().remove(0);
    assert_eq!(grant.expires_at, Some(grant.created_at + hour));

    f.clock.advance(hour - chrono::Duration::minutes(1));
    let within = f
        .propose(&here, &[("delete_file", json!({"path": "b"}))])
        .await
        .remove(0);
    assert_eq!(within.status, CallStatus::Approved);
    f.clock.advance(chrono::Duration::minutes(1));
    let after = f
        .propose(&here, &[("delete_file", json!({"path": "c"}))])
        .await
        .remove(0);
    assert_eq!(
        after.status,
        CallStatus::PendingApproval,
        "the hour is over"
    );
}

#[tokio::test]
async fn a_grant_of_a_folder_lets_only_calls_in_that_folder_run() {
    let f = Fixture::new().await;
    let here = f.conversation().await;
    let write = |path: &str| ("write_file", json!({ "path": path, "content": "x" }));
    let first = f.propose(&here, &[write("drafts/a.md")]).await.remove(0);
    f.engine
        .decide(
            &first.id,
            Verdict::AlwaysAllow {
                everywhere: false,
                lasts: None,
                arguments: GrantArgumentChoice::SameFolder,
            },
            &chat("ana"),
        )
        .await
        .unwrap();
    let grant = f.engine.grants().await.unwrap().remove(0);
    assert_eq!(grant.arguments.words(), "with `path` in `drafts/` or below");
    let next = f
        .propose(&here, &[write("drafts/b.md"), write("notes.txt")])
        .await;
    assert_eq!(next[0].status, CallStatus::Approved, "in the folder");
    assert_eq!(next[1].status, CallStatus::PendingApproval, "outside it");

    // A call with no path has no folder to allow: refused, still waiting.
    let email = f
        .propose(
            &here,
            &[(
                "send_email",
                json!({ "to": "ana@example.com", "body": "hi" }),
            )],
        )
        .await
        .remove(0);
    let refused = f
        .engine
        .decide(
            &email.id,
            Verdict::AlwaysAllow {
                everywhere: false,
                lasts: None,
                arguments: GrantArgumentChoice::SameFolder,
            },
            &chat("ana"),
        )
        .await;
    assert!(
        matches!(
            refused,
            Err(EngineError::Invalid {
                field: "arguments",
                ..
            })
        ),
        "{refused:?}"
    );
    let stored = f.engine.tool_calls(&here).await.unwrap();
    let email = stored.iter().find(|c| c.id == email.id).unwrap();
    assert_eq!(email.status, CallStatus::PendingApproval);
}
