//! Who may do what once people sign in: a viewer reads only, an approver
//! decides, an administrator also allows tools everywhere, revokes grants
//! and adds and disables people.

use engine::domain::Access;
use reqwest::redirect::Policy;
use reqwest::Client;
use serde_json::{json, Value};

use crate::support;

use support::people::{
    code, get_as, post_as, signed_in_as, signed_in_as_existing, waiting_deletes, CONFIG, PASSWORD,
};

#[tokio::test]
async fn access_decides_who_may_change_what() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let viewer = signed_in_as(&server, &client, "vic", Access::Viewer).await;
    let approver = signed_in_as(&server, &client, "ana", Access::Approver).await;
    let admin = signed_in_as(&server, &client, "ada", Access::Admin).await;
    let conversation = server.engine.create_conversation().await.unwrap();
    // A chat shows its cards once it has a message.
    server
        .engine
        .post_message(&conversation.id, "delete notes.txt", None)
        .await
        .unwrap();
    let calls = waiting_deletes(&server, &conversation.id, 2).await;
    let (first, second) = (calls[0].id.as_str(), calls[1].id.as_str());
    let not_allowed = (403, json!("not_allowed"));

    // A viewer reads the cards without their forms, and the chat without
    // its composer; an approver gets both.
    let text = |res: reqwest::Response| async move {
        assert_eq!(res.status(), 200);
        res.text().await.unwrap()
    };
    let chat = format!("/c/{}", conversation.id);
    for path in [chat.as_str(), "/approvals"] {
        let seen = text(get_as(&server, &client, &viewer, path).await).await;
        assert!(
            !seen.contains("/api/fn/approve_call"),
            "{path}: a viewer got a form"
        );
        assert!(seen.contains("Waiting for an approver"), "{path}");
        let seen = text(get_as(&server, &client, &approver, path).await).await;
        assert!(
            seen.contains("/api/fn/approve_call"),
            "{path}: the approver got none"
        );
    }
    let seen = text(get_as(&server, &client, &viewer, &chat).await).await;
    assert!(
        !seen.contains("/api/fn/post_message"),
        "a viewer got the composer"
    );
    assert!(seen.contains("You can read this conversation"));
    let seen = text(get_as(&server, &client, &approver, &chat).await).await;
    assert!(seen.contains("/api/fn/post_message"));

    // A viewer changes nothing, whatever it posts.
    let approve = post_as(
        &server,
        &client,
        &viewer,
        "approve_call",
        &[("call_id", first)],
    )
    .await;
    assert_eq!(code(approve).await, not_allowed);
    let conversation_id = conversation.id.as_str();
    let write = [("conversation_id", conversation_id), ("content", "hello")];
    assert_eq!(
        code(post_as(&server, &client, &viewer, "post_message", &write).await).await,
        not_allowed
    );
    assert_eq!(
        code(
            post_as(
                &server,
                &client,
                &viewer,
                "create_conversation",
                &[("", "")]
            )
            .await
        )
        .await,
        not_allowed
    );

    // An approver decides, but may not allow a tool everywhere.
    let everywhere = [("call_id", first), ("everywhere", "true")];
    let refused = post_as(
        &server,
        &client,
        &approver,
        "always_allow_call",
        &everywhere,
    )
    .await;
    assert_eq!(code(refused).await, not_allowed);
    let calls_now = server.engine.tool_calls(&conversation.id).await.unwrap();
    assert!(
        calls_now.iter().all(|c| c.decision.is_none()),
        "nothing was decided"
    );
    let approved = post_as(
        &server,
        &client,
        &approver,
        "approve_call",
        &[("call_id", first)],
    )
    .await;
    assert_eq!(approved.status(), 200);

    // An administrator may; only an administrator revokes.
    let everywhere = [("call_id", second), ("everywhere", "true")];
    let allowed = post_as(&server, &client, &admin, "always_allow_call", &everywhere).await;
    assert_eq!(allowed.status(), 200);
    let grant = server.engine.grants().await.unwrap().remove(0);
    let revoke = [("grant_id", grant.id.as_str())];
    let refused = post_as(&server, &client, &approver, "revoke_grant", &revoke).await;
    assert_eq!(code(refused).await, not_allowed);
    assert_eq!(server.engine.grants().await.unwrap()[0].revoked_at, None);
    let revoked = post_as(&server, &client, &admin, "revoke_grant", &revoke).await;
    assert!(
        revoked.status().is_success() || revoked.status().is_redirection(),
        "{}",
        revoked.status()
    );
    let revoked = server.engine.grants().await.unwrap().remove(0);
    assert!(revoked.revoked_at.is_some());
    // Both ends of the grant name the person, by id as well as by name.
    let people = server.engine.people().await.unwrap();
    let ada = people.iter().find(|p| p.name == "ada").unwrap();
    assert_eq!(
        revoked.revoked_by.map(|p| (p.id, p.name)),
        Some((ada.id.clone(), "ADA".into()))
    );
    assert_eq!(revoked.created_by_id.as_ref(), Some(&ada.id));
}

#[tokio::test]
async fn administrators_add_and_disable_people_from_the_people_page() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::start(dir.path(), CONFIG, &[], support::Workers::default()).await;
    let client = Client::builder().redirect(Policy::none()).build().unwrap();
    let admin = signed_in_as(&server, &client, "ada", Access::Admin).await;
    let approver = signed_in_as(&server, &client, "ana", Access::Approver).await;

    // Only an administrator sees People, and only they may use it.
    let page = |cookie: String| {
        let (server, client) = (&server, &client);
        async move {
            let res = get_as(server, client, &cookie, "/approvals").await;
            res.text().await.unwrap()
        }
    };
    assert!(page(admin.clone()).await.contains("href=\"/people\""));
    assert!(!page(approver.clone()).await.contains("href=\"/people\""));
    let listed = get_as(&server, &client, &approver, "/api/fn/list_people").await;
    assert_eq!(code(listed).await, (403, json!("not_allowed")));
    let add = [
        ("name", "bo"),
        ("display_name", "Bo Chen"),
        ("access", "viewer"),
        ("password", PASSWORD),
    ];
    assert_eq!(
        code(post_as(&server, &client, &approver, "add_person", &add).await).await,
        (403, json!("not_allowed"))
    );

    // An administrator adds someone, who can then sign in.
    let added = post_as(&server, &client, &admin, "add_person", &add).await;
    assert!(added.status().is_success(), "{}", added.status());
    let bo = signed_in_as_existing(&server, &client, "bo").await;
    let people: Value = get_as(&server, &client, &admin, "/api/fn/list_people")
        .await
        .json()
        .await
        .unwrap();
    let names: Vec<_> = people
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].clone())
        .collect();
    assert_eq!(names, [json!("ada"), json!("ana"), json!("bo")]);
    assert_eq!(
        (people[0]["you"].clone(), people[2]["you"].clone()),
        (json!(true), json!(false))
    );
    let bo_id = people[2]["id"].as_str().unwrap().to_owned();
    let ada_id = people[0]["id"].as_str().unwrap().to_owned();

    // Disabling ends their sessions at once; nobody disables themselves.
    let disabled = post_as(
        &server,
        &client,
        &admin,
        "disable_person",
        &[("person_id", &bo_id)],
    )
    .await;
    assert!(disabled.status().is_success(), "{}", disabled.status());
    let after = get_as(&server, &client, &bo, "/approvals").await;
    assert_eq!(after.status(), 303);
    let myself = post_as(
        &server,
        &client,
        &admin,
        "disable_person",
        &[("person_id", &ada_id)],
    )
    .await;
    assert_eq!(myself.status(), 400);
}
