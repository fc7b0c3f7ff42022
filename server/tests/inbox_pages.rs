//! The approvals inbox a page at a time: 100 waiting calls, the one waiting
//! longest first, a link to the next page, and filters by source, tool and
//! how long a call has waited, as the page asks for them over HTTP.

use serde_json::Value;

use crate::support;

use support::people::waiting_deletes;

#[tokio::test]
async fn the_inbox_pages_and_filters_its_waiting_calls() {
    let dir = tempfile::tempdir().unwrap();
    let config = "sources:\n  demo:\n    require_approval: [delete_file]\n";
    let server = support::start(dir.path(), config, &[], support::Workers::default()).await;
    let conversation = server.engine.create_conversation().await.unwrap();
    let calls = waiting_deletes(&server, &conversation.id, 150).await;
    let client = reqwest::Client::new();
    let page = |query: String| {
        let client = client.clone();
        let url = server.url(&format!("/api/fn/list_approvals{query}"));
        async move {
            let res = client
                .get(url)
                .header("accept", "application/json")
                .send()
                .await
                .unwrap();
            (res.status().as_u16(), res.json::<Value>().await.unwrap())
        }
    };
    let ids = |page: &Value| -> Vec<String> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["call"]["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let (status, first) = page(String::new()).await;
    assert_eq!(status, 200);
    assert_eq!(ids(&first).len(), 100);
    assert_eq!(ids(&first)[0], calls[0].id.as_str());
    assert_eq!(first["live"], true);
    let next = first["next"].as_str().expect("more wait");
    let (_, second) = page(format!("?after={next}")).await;
    assert_eq!(ids(&second).len(), 50);
    assert_eq!(ids(&second)[0], calls[100].id.as_str());
    assert!(second["next"].is_null());
    assert_eq!(second["live"], false);

    let (_, writes) = page("?tool=write_file".into()).await;
    assert!(ids(&writes).is_empty());
    let (_, demo) = page("?source=demo&tool=delete_file".into()).await;
    assert_eq!(ids(&demo).len(), 100);
    let (_, long) = page("?waited=1h".into()).await;
    assert!(ids(&long).is_empty(), "nothing has waited an hour");
    for bad in ["?waited=forever", "?after=yesterday"] {
        let (status, error) = page(bad.into()).await;
        assert_eq!(
            (status, error["code"].as_str()),
            (400, Some("invalid")),
            "{bad}"
        );
    }
    // The page itself, without JavaScript: the link to the next page.
    let html = client
        .get(server.url("/approvals"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains("More waiting calls"), "{html}");
    assert!(html.contains("Filter waiting calls"), "{html}");
}
