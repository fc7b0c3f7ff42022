//! Conflicting decisions at once: for each waiting call, one client approves
//! in the chat (a server function) while another rejects, through the review
//! link (the HITL respond endpoint) or a second chat. Exactly one wins each pair, the other
//! gets 409, and the store agrees with the winner. On SQLite, and on
//! PostgreSQL when `AIRLOCK_TEST_DATABASE_URL` is set.
//!
//! `AIRLOCK_RACE_PAIRS` sets the number of pairs (default 50; `make faults`
//! runs 1,000).

use crate::support;

use serde_json::json;

const KEY: &str = "race-key";

#[tokio::test]
async fn each_pair_of_conflicting_decisions_has_exactly_one_winner() {
    race(None).await;
}

#[tokio::test]
async fn each_pair_has_exactly_one_winner_on_postgres() {
    match support::fresh_schema().await {
        Some(url) => race(Some(&url)).await,
        None => eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: PostgreSQL races skipped"),
    }
}

/// The races against a server on `database` (SQLite when `None`).
async fn race(database: Option<&str>) {
    let pairs: usize = std::env::var("AIRLOCK_RACE_PAIRS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(50);
    let dir = tempfile::tempdir().unwrap();
    let server = support::start_on(
        dir.path(),
        &support::gateway_config("racer", KEY),
        database,
        support::Workers::default(),
    )
    .await;
    let (base, engine) = (server.base.clone(), server.engine.clone());
    let setup = reqwest::Client::new();
    let mut cases = Vec::with_capacity(pairs);
    for n in 0..pairs {
        let call = json!({"tool": "delete_file", "arguments": {"path": format!("f{n}")}, "source": "filesystem", "session_id": format!("s{}", n % 8)});
        let body = support::ask_gateway(&setup, &base, KEY, call).await;
        let hitl = &body["hitl"];
        let (case, token) = support::review_link(hitl);
        cases.push((
            case,
            token,
            hitl["context"]["call_id"].as_str().unwrap().to_owned(),
        ));
    }

    // Two independent clients, each with its own connections, fire at once.
    let (chat, reviewer) = (reqwest::Client::new(), reqwest::Client::new());
    let races = cases.iter().enumerate().map(|(n, (case, token, call))| {
        let approve = chat
            .post(format!("{base}/api/fn/approve_call"))
            .header("accept", "application/json")
            .form(&[("call_id", call.as_str())])
            .send();
        // Half the rejections come through the review link, half from a
        // second chat tab, so some races meet at the store's compare-and-set
        // on equal footing.
        let reject = if n % 4 < 2 {
            reviewer
                .post(format!(
                    "{base}/api/v1/reviews/{case}/respond?token={token}"
                ))
                .json(&json!({"action": "reject", "data": {"feedback": "race"}}))
                .send()
        } else {
            reviewer
                .post(format!("{base}/api/fn/reject_call"))
                .header("accept", "application/json")
                .form(&[("call_id", call.as_str()), ("reason", "race")])
                .send()
        };
        // Every other pair sends the rejection first, so both sides win some.
        tokio::spawn(async move {
            let (a, r) = if n % 2 == 0 {
                tokio::join!(approve, reject)
            } else {
                let (r, a) = tokio::join!(reject, approve);
                (a, r)
            };
            (a.unwrap().status().as_u16(), r.unwrap().status().as_u16())
        })
    });
    let outcomes: Vec<(u16, u16)> = futures::future::join_all(races)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();

    let store = engine.store();
    let (mut approvals, mut rejections) = (0, 0);
    for ((case, _, call), (approve, reject)) in cases.iter().zip(outcomes) {
        let won = match (approve, reject) {
            (200, 409) => "approved",
            (409, 200) => "rejected",
            other => panic!("{case}: expected one 200 and one 409, got {other:?}"),
        };
        let stored = store
            .tool_call(&engine::domain::ToolCallId::parse(call).unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            stored.status.as_str(),
            won,
            "{case}: the store agrees with the winner"
        );
        let review = store
            .review_case(&engine::domain::CaseId::parse(case).unwrap())
            .await
            .unwrap()
            .unwrap();
        let action = review.result.as_ref().and_then(|r| r["action"].as_str());
        assert_eq!(
            action,
            Some(if won == "approved" {
                "approve"
            } else {
                "reject"
            })
        );
        let events = store.case_events_after(&review.id, 0).await.unwrap();
        assert_eq!(
            events.iter().filter(|e| e.is_terminal()).count(),
            1,
            "{case}: one terminal event"
        );
        if won == "approved" {
            approvals += 1;
        } else {
            rejections += 1;
        }
    }
    let backend = engine.store().backend();
    eprintln!("{pairs} races on {backend}: {approvals} won by approve, {rejections} by reject");
}
