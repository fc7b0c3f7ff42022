//! Conversations with remote agents: none until saved, then as last saved,
//! the interrupt and its calls included, after a reopen too.

use super::*;
use crate::a2a::kagent::{Generation, Interrupt, Requested};
use crate::a2a::thread::{Asked, RemoteThread};
use crate::domain::RunId;

pub(crate) async fn a_remote_thread_is_kept_as_last_saved(f: &Fixture) {
    let store = &f.store;
    let c = new_conversation(store).await;
    assert_eq!(store.remote_thread(&c.id).await.unwrap(), None);
    let at = chrono::DateTime::from_timestamp_millis(1_000).unwrap();
    let new = RemoteThread::new(c.id.clone(), "k8s", at);
    store.save_remote_thread(&new).await.unwrap();
    assert_eq!(store.remote_thread(&c.id).await.unwrap(), Some(new.clone()));
    let asked = Asked {
        interrupt: Interrupt {
            generation: Generation::Released,
            calls: vec![Requested {
                token: "adk-1".into(),
                call_id: "call_1".into(),
                name: "k8s_delete_resource".into(),
                args: serde_json::json!({"name": "web"}),
            }],
        },
        calls: vec![ToolCallId::new()],
    };
    let waiting = RemoteThread {
        context_id: Some("ctx".into()),
        task_id: Some("task".into()),
        task_state: Some("input-required".into()),
        run_id: Some(RunId::new()),
        asked: Some(asked),
        answered: true,
        updated_at: chrono::DateTime::from_timestamp_millis(2_000).unwrap(),
        ..new
    };
    store.save_remote_thread(&waiting).await.unwrap();
    let read = f.reopen().await.remote_thread(&c.id).await.unwrap();
    assert_eq!(read, Some(waiting));
}
