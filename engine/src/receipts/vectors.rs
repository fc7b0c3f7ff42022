//! The receipts every verifier must agree on: `clients/receipt-vectors.json`,
//! which the Python and TypeScript clients' tests check too. Made here,
//! deterministically (Ed25519 signs the same bytes the same way); the test
//! fails when the file differs from what is made, and
//! `AIRLOCK_WRITE_RECEIPT_VECTORS=1` writes it anew.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chrono::DateTime;
use serde_json::{json, Value};

use super::*;

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../clients/receipt-vectors.json"
);

/// Decided at, in seconds; the vectors are checked a minute later.
const DECIDED: i64 = 1_764_417_600;

/// The arguments as an agent sent them: key order, number forms and
/// characters that canonical JSON writes one way.
const ARGUMENTS: &str = r#"{"path": "notes.txt", "size": 1.5e3, "force": true, "note": "caf\u00e9 \u2028 \ud83d\ude00"}"#;

fn claims(decision: &str, approved: bool) -> Claims {
    let arguments: Value = serde_json::from_str(ARGUMENTS).unwrap();
    Claims {
        iss: "https://airlock.example".into(),
        call_id: "call_0123456789abcdef".into(),
        source: "filesystem".into(),
        tool: "delete_file".into(),
        arguments_sha256: arguments_digest(&arguments).unwrap(),
        approved,
        decision: decision.into(),
        decided_by: "Ana Lima".into(),
        approvers: vec!["Ana Lima".into()],
        iat: DECIDED,
        exp: DECIDED + 3600,
    }
}

fn case(name: &str, receipt: &str, arguments: Option<&str>, now: i64, outcome: Value) -> Value {
    json!({"name": name, "receipt": receipt, "arguments": arguments, "now": now, "outcome": outcome})
}

fn made() -> Value {
    let new = SigningKey::derive(b"receipt vectors", "rk-new");
    let old = SigningKey::derive(b"receipt vectors", "rk-old");
    let gone = SigningKey::derive(b"receipt vectors", "rk-gone");
    let keys = Jwks {
        keys: vec![new.jwk(), old.jwk()],
    };
    let approved = claims("approve", true);
    let token = sign(&approved, &new);
    let parts: Vec<&str> = token.split('.').collect();
    let rejected = sign(&claims("reject", false), &new);
    let swapped = format!(
        "{}.{}.{}",
        parts[0],
        rejected.split('.').nth(1).unwrap(),
        parts[2]
    );
    let at = parts[2].len() / 2;
    let flip = if &parts[2][at..=at] == "A" { "B" } else { "A" };
    let bent = format!(
        "{}.{}.{}{flip}{}",
        parts[0],
        parts[1],
        &parts[2][..at],
        &parts[2][at + 1..]
    );
    let hs256 =
        URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","kid":"rk-new","typ":"airlock-receipt+jwt"}"#);
    let other_algorithm = format!("{hs256}.{}.{}", parts[1], parts[2]);
    let old_kid =
        URL_SAFE_NO_PAD.encode(br#"{"alg":"EdDSA","kid":"rk-old","typ":"airlock-receipt+jwt"}"#);
    let other_kid = format!("{old_kid}.{}.{}", parts[1], parts[2]);
    let reordered = r#"{"note":"café \u2028 😀","force":true,"size":1500,"path":"notes.txt"}"#;
    let now = DECIDED + 60;
    let valid = |claims: &Claims| json!({"valid": true, "claims": claims});
    let refused = |code: &str| json!({"valid": false, "code": code});
    json!({
        "about": "Receipts every verifier must agree on; made by engine/src/receipts/vectors.rs.",
        "keys": keys,
        "cases": [
            case("approved, for the arguments as sent", &token, Some(ARGUMENTS), now, valid(&approved)),
            case("the same arguments in another order and form", &token, Some(reordered), now, valid(&approved)),
            case("arguments not checked", &token, None, now, valid(&approved)),
            case("other arguments", &token, Some(r#"{"path": "other.txt"}"#), now, refused("receipt_arguments_differ")),
            case("a rejection, signed as one", &rejected, None, now, valid(&claims("reject", false))),
            case("another decision under the old signature", &swapped, None, now, refused("receipt_bad_signature")),
            case("the signature changed", &bent, None, now, refused("receipt_bad_signature")),
            case("signed by the replaced key", &sign(&approved, &old), None, now, valid(&approved)),
            case("signed by a key not in the set", &sign(&approved, &gone), None, now, refused("receipt_unknown_key")),
            case("the key id changed to another key's", &other_kid, None, now, refused("receipt_bad_signature")),
            case("another algorithm named", &other_algorithm, None, now, refused("receipt_algorithm")),
            case("expired", &token, None, DECIDED + 3600, refused("receipt_expired")),
            case("not a receipt", "a.b", None, now, refused("receipt_malformed")),
        ],
    })
}

#[test]
fn every_vector_checks_here_as_the_file_says_and_the_file_is_current() {
    let vectors = made();
    let keys: Jwks = serde_json::from_value(vectors["keys"].clone()).unwrap();
    for case in vectors["cases"].as_array().unwrap() {
        let now = DateTime::from_timestamp(case["now"].as_i64().unwrap(), 0).unwrap();
        let arguments: Option<Value> = case["arguments"]
            .as_str()
            .map(|text| serde_json::from_str(text).unwrap());
        let receipt = case["receipt"].as_str().unwrap();
        let outcome = match verify(receipt, &keys, now, arguments.as_ref()) {
            Ok(claims) => json!({"valid": true, "claims": claims}),
            Err(refused) => json!({"valid": false, "code": refused.code()}),
        };
        assert_eq!(outcome, case["outcome"], "{}", case["name"]);
    }
    let text = serde_json::to_string_pretty(&vectors).unwrap() + "\n";
    if std::env::var_os("AIRLOCK_WRITE_RECEIPT_VECTORS").is_some() {
        std::fs::write(FILE, &text).unwrap();
    }
    let kept = std::fs::read_to_string(FILE).unwrap_or_default();
    assert!(
        kept == text,
        "{FILE} is not what the receipts make now: write it anew with AIRLOCK_WRITE_RECEIPT_VECTORS=1"
    );
}
