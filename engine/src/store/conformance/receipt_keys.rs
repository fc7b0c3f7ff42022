//! Receipt keys: newest first, and a new key retires the others at once.

use super::*;
use crate::domain::ReceiptKey;

pub(crate) async fn a_new_receipt_key_retires_the_others(f: &Fixture) {
    let store = &f.store;
    assert!(store.receipt_keys().await.unwrap().is_empty());
    let at = |ms: i64| chrono::DateTime::from_timestamp_millis(ms).unwrap();
    let key = |id: &str, ms: i64| ReceiptKey {
        id: id.into(),
        public_key: format!("public-{id}"),
        created_at: at(ms),
        retired_at: None,
    };
    store.add_receipt_key(&key("k1", 1_000)).await.unwrap();
    store.add_receipt_key(&key("k2", 2_000)).await.unwrap();
    let keys = f.reopen().await.receipt_keys().await.unwrap();
    let retired = ReceiptKey {
        retired_at: Some(at(2_000)),
        ..key("k1", 1_000)
    };
    assert_eq!(keys, [key("k2", 2_000), retired]);
    let again = store.add_receipt_key(&key("k2", 3_000)).await;
    assert!(again.is_err(), "a key id is used once");
    assert_eq!(store.receipt_keys().await.unwrap().len(), 2);
}
