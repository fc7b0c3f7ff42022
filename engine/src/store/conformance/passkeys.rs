//! Passkeys: each credential registered once, listed per person, removed
//! only by their person; a challenge taken once, by its person only.

use chrono::DateTime;

use super::*;
use crate::domain::{Access, Passkey, PasskeyChallenge, Person, PersonId};
use crate::store::PasskeyUse;

fn at(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap()
}

async fn someone(store: &Arc<dyn Store>, name: &str) -> PersonId {
    let person = Person {
        id: PersonId::new(),
        name: name.into(),
        display_name: name.into(),
        access: Access::Approver,
        email: None,
        disabled_at: None,
        created_at: at(1_000),
    };
    store.insert_person(&person, None, None).await.unwrap();
    person.id
}

fn passkey(id: &str, person: &PersonId, credential: &str, ms: i64) -> Passkey {
    Passkey {
        id: id.into(),
        person_id: person.clone(),
        name: format!("key {id}"),
        credential_id: credential.into(),
        public_key: r#"{"alg":"EdDSA","key":[1,2]}"#.into(),
        sign_count: 0,
        backup_eligible: true,
        created_at: at(ms),
        last_used_at: None,
    }
}

pub(crate) async fn passkeys_are_a_persons_own_and_registered_once(f: &Fixture) {
    let store = &f.store;
    let ana = someone(store, "ana").await;
    let bo = someone(store, "bo").await;
    assert!(store
        .add_passkey(&passkey("pk-1", &ana, "cred-a", 2_000))
        .await
        .unwrap());
    assert!(store
        .add_passkey(&passkey("pk-2", &ana, "cred-b", 3_000))
        .await
        .unwrap());
    let taken = passkey("pk-3", &bo, "cred-a", 4_000);
    assert!(
        !store.add_passkey(&taken).await.unwrap(),
        "a credential is registered once"
    );
    let key = passkey("pk-1", &ana, "cred-a", 2_000);
    let call = ToolCall::waiting("demo", "write_file", json!({"path": "a"}));
    let used = PasskeyUse {
        passkey: &key,
        sign_count: 7,
        call: &call,
        by: "Ana",
        channel: Channel::Chat,
        at: at(5_000),
    };
    store.passkey_used(&used).await.unwrap();
    let reopened = f.reopen().await;
    let keys = reopened.passkeys_of(&ana).await.unwrap();
    let used = Passkey {
        sign_count: 7,
        last_used_at: Some(at(5_000)),
        ..passkey("pk-1", &ana, "cred-a", 2_000)
    };
    assert_eq!(keys, [used, passkey("pk-2", &ana, "cred-b", 3_000)]);
    assert!(store.passkeys_of(&bo).await.unwrap().is_empty());
    assert!(
        !store.remove_passkey(&bo, "pk-1").await.unwrap(),
        "not bo's"
    );
    assert!(store.remove_passkey(&ana, "pk-1").await.unwrap());
    assert_eq!(store.passkeys_of(&ana).await.unwrap().len(), 1);
}

pub(crate) async fn a_passkey_challenge_is_taken_once_by_its_person(f: &Fixture) {
    let store = &f.store;
    let ana = someone(store, "ana").await;
    let bo = someone(store, "bo").await;
    let challenge = |id: &str, expires: i64| PasskeyChallenge {
        id: id.into(),
        person_id: ana.clone(),
        purpose: "register".into(),
        challenge: format!("bytes-{id}"),
        expires_at: at(expires),
    };
    store
        .add_passkey_challenge(&challenge("c1", 10_000), at(1_000))
        .await
        .unwrap();
    store
        .add_passkey_challenge(&challenge("c2", 3_000), at(1_000))
        .await
        .unwrap();
    assert_eq!(store.take_passkey_challenge("c1", &bo).await.unwrap(), None);
    assert_eq!(
        store.take_passkey_challenge("c1", &ana).await.unwrap(),
        Some(challenge("c1", 10_000))
    );
    assert_eq!(
        store.take_passkey_challenge("c1", &ana).await.unwrap(),
        None,
        "once"
    );
    // A lapsed challenge is dropped when the next one is handed out.
    store
        .add_passkey_challenge(&challenge("c3", 20_000), at(5_000))
        .await
        .unwrap();
    assert_eq!(
        store.take_passkey_challenge("c2", &ana).await.unwrap(),
        None
    );
}
