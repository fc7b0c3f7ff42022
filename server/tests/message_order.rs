//! Messages posted one after another to one conversation, each waiting
//! for its answer, over one kept-alive connection while the demo agent
//! answers them: the order Airlock answered them in is the order it stores
//! them, shows them and gives them to the model, on both stores. A message
//! held while the agent wrote (`queued`) once came after the next one when
//! that came in the moment the run ended.

use crate::support;

use engine::domain::{ConversationId, Role};

/// How many messages: enough to land in the gap after a run's end many
/// times over (35 of 400 were out of order before).
const MESSAGES: usize = 1_000;

async fn posted_in_order(database: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let workers = support::Workers {
        agent: true,
        ..Default::default()
    };
    let server = support::start_on(dir.path(), "{}\n", database, workers).await;
    // One client: one connection, kept alive from post to post.
    let client = reqwest::Client::new();
    let id = support::create_conversation(&client, &server.base).await;
    let mut held = 0;
    for i in 0..MESSAGES {
        let content = format!("message {i}");
        let answer = client
            .post(server.url("/api/fn/post_message"))
            .header("accept", "application/json")
            .header("origin", &server.base)
            .form(&[("conversation_id", id.as_str()), ("content", &content)])
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200, "{content}");
        let posted: serde_json::Value = answer.json().await.unwrap();
        held += usize::from(posted["queued"] == true);
    }
    // The held ones join the conversation as the runs end.
    let id = ConversationId::parse(&id).unwrap();
    let stored = loop {
        let messages = server.engine.store().messages(&id).await.unwrap();
        let people: Vec<String> = messages
            .into_iter()
            .filter(|m| m.role == Role::User)
            .map(|m| m.content)
            .collect();
        if people.len() == MESSAGES {
            break people;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let sent: Vec<String> = (0..MESSAGES).map(|i| format!("message {i}")).collect();
    let first_wrong = stored.iter().zip(&sent).position(|(s, p)| s != p);
    assert_eq!(first_wrong, None, "{held} of {MESSAGES} were held");
}

#[tokio::test]
async fn messages_over_one_connection_are_stored_in_the_order_answered() {
    posted_in_order(None).await;
}

#[tokio::test]
async fn messages_over_one_connection_are_stored_in_the_order_answered_on_postgres() {
    let Some(url) = support::fresh_schema().await else {
        eprintln!("AIRLOCK_TEST_DATABASE_URL is not set: skipped");
        return;
    };
    posted_in_order(Some(&url)).await;
}
