//! The engine handle's own rules: messages, errors and conversations.

use super::*;
use crate::conversations::MAX_MESSAGE_CHARS;
use crate::domain::{ConversationId, UNTITLED};
use crate::store::StoreError;

#[test]
fn text_the_store_refuses_is_the_clients_mistake() {
    let e = EngineError::from(StoreError::NulInText);
    assert!(
        matches!(&e, EngineError::Invalid { field: "text", message } if message.contains("U+0000")),
        "{e:?}"
    );
    let e = EngineError::from(StoreError::NotFound("run"));
    assert!(matches!(e, EngineError::Store(_)), "{e:?}");
}

use crate::clock::SystemClock;
use crate::store::sqlite::SqliteStore;

async fn engine() -> (Engine, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    let store = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
    (
        Engine::new(Arc::new(store), Arc::new(SystemClock), Config::default()),
        dir,
    )
}

#[tokio::test]
async fn the_first_message_names_the_conversation() {
    let (engine, _dir) = engine().await;
    let c = engine.create_conversation().await.unwrap();
    assert_eq!(c.title, UNTITLED);
    engine
        .post_message(&c.id, "  list files\n", None)
        .await
        .unwrap();
    let second = engine
        .post_message(&c.id, "read notes.txt", None)
        .await
        .unwrap();
    // Nobody stepped the first message's run: the second waits for it.
    assert!(second.queued);
    assert_eq!(second.conversation_title, "list files");
    let view = engine.conversation(&c.id).await.unwrap();
    assert_eq!(view.conversation.title, "list files");
    let texts: Vec<_> = view.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts, ["list files"]);
}

#[tokio::test]
async fn empty_and_oversized_messages_are_refused() {
    let (engine, _dir) = engine().await;
    let c = engine.create_conversation().await.unwrap();
    assert!(matches!(
        engine.post_message(&c.id, " \n ", None).await,
        Err(EngineError::Invalid {
            field: "content",
            ..
        })
    ));
    let long = "x".repeat(MAX_MESSAGE_CHARS + 1);
    assert!(matches!(
        engine.post_message(&c.id, &long, None).await,
        Err(EngineError::Invalid { .. })
    ));
    assert!(engine
        .conversation(&c.id)
        .await
        .unwrap()
        .messages
        .is_empty());
}

#[tokio::test]
async fn unknown_conversations_are_not_found() {
    let (engine, _dir) = engine().await;
    let id = ConversationId::new();
    assert!(matches!(
        engine.conversation(&id).await,
        Err(EngineError::NotFound("conversation"))
    ));
    assert!(matches!(
        engine.post_message(&id, "hi", None).await,
        Err(EngineError::NotFound("conversation"))
    ));
}
