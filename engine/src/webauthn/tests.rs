//! Registrations and assertions from a software authenticator made here
//! with `ring`: what a browser would hand over, then each check broken.

use ring::signature::KeyPair;
use rstest::rstest;

use super::soft::*;
use super::*;

/// What a browser hands over for a registration with `flags`.
fn registered(key: &Key, challenge: &[u8], flags: u8) -> (Vec<u8>, Vec<u8>) {
    let data = auth_data(&rp().id, flags, 0, Some((b"cred-1", key)));
    (
        client_data("webauthn.create", challenge, &rp().origin),
        attestation_object(data),
    )
}

#[rstest]
#[case::es256(Key::es256())]
#[case::ed25519(Key::ed25519())]
fn a_registration_then_an_assertion_hold(#[case] key: Key) {
    let challenge = [7u8; 32];
    let (client, object) = registered(&key, &challenge, UP | UV | AT);
    let answer = Registration {
        client_data_json: &client,
        attestation_object: &object,
    };
    let credential = register(&rp(), &challenge, answer).unwrap();
    assert_eq!(credential.id, b"cred-1");

    let challenge = [9u8; 48];
    let client = client_data("webauthn.get", &challenge, &rp().origin);
    let data = auth_data(&rp().id, UP | UV, 1, None);
    let mut signed = data.clone();
    signed.extend_from_slice(&Sha256::digest(&client));
    let signature = key.sign(&signed);
    let stored = Stored {
        public_key: &credential.public_key,
        sign_count: 0,
        backup_eligible: false,
    };
    let answer = Assertion {
        client_data_json: &client,
        authenticator_data: &data,
        signature: &signature,
    };
    assert_eq!(assert(&rp(), &challenge, stored, answer), Ok(1));
    // The same assertion again: its counter no longer goes up.
    let again = Stored {
        sign_count: 1,
        ..stored
    };
    assert_eq!(
        assert(&rp(), &challenge, again, answer),
        Err(WebauthnError::Counter)
    );
}

/// An assertion with `flags`, signed by `key` over `challenge` for `origin`
/// and `rp_id`, checked against `expected` (the challenge stored).
fn asserted(
    key: &Key,
    expected: &[u8],
    given: &[u8],
    flags: u8,
    origin: &str,
    rp_id: &str,
    tamper: bool,
) -> Result<u32, WebauthnError> {
    let public_key = match key {
        Key::Es256(pair) => PublicKey::Es256 {
            point: pair.public_key().as_ref().to_vec(),
        },
        Key::Ed25519(pair) => PublicKey::Ed25519 {
            key: pair.public_key().as_ref().to_vec(),
        },
    };
    let client = client_data("webauthn.get", given, origin);
    let data = auth_data(rp_id, flags, 0, None);
    let mut signed = data.clone();
    signed.extend_from_slice(&Sha256::digest(&client));
    let mut signature = key.sign(&signed);
    if tamper {
        let last = signature.len() - 1;
        signature[last] ^= 1;
    }
    let stored = Stored {
        public_key: &public_key,
        sign_count: 0,
        backup_eligible: false,
    };
    let answer = Assertion {
        client_data_json: &client,
        authenticator_data: &data,
        signature: &signature,
    };
    assert(&rp(), expected, stored, answer)
}

#[test]
fn each_check_of_an_assertion_refuses_on_its_own() {
    let key = Key::es256();
    let ours = [1u8; 48];
    let origin = rp().origin;
    let id = rp().id;
    assert_eq!(
        asserted(&key, &ours, &ours, UP | UV, &origin, &id, false),
        Ok(0)
    );
    // Made for another call: its challenge holds another digest.
    let other = [2u8; 48];
    let refused = asserted(&key, &ours, &other, UP | UV, &origin, &id, false);
    assert_eq!(refused, Err(WebauthnError::Challenge));
    let refused = asserted(&key, &ours, &ours, UP, &origin, &id, false);
    assert_eq!(
        refused,
        Err(WebauthnError::Verification),
        "no user verification"
    );
    let refused = asserted(&key, &ours, &ours, UV, &origin, &id, false);
    assert_eq!(refused, Err(WebauthnError::Presence));
    let refused = asserted(
        &key,
        &ours,
        &ours,
        UP | UV,
        "https://evil.example",
        &id,
        false,
    );
    assert_eq!(
        refused,
        Err(WebauthnError::Origin("https://evil.example".into()))
    );
    let refused = asserted(&key, &ours, &ours, UP | UV, &origin, "evil.example", false);
    assert_eq!(refused, Err(WebauthnError::RelyingParty));
    let refused = asserted(&key, &ours, &ours, UP | UV, &origin, &id, true);
    assert_eq!(refused, Err(WebauthnError::Signature));
    assert_eq!(refused.unwrap_err().code(), "passkey_signature");
}

#[test]
fn a_registration_without_verification_or_for_another_request_is_refused() {
    let key = Key::ed25519();
    let challenge = [3u8; 32];
    let (client, object) = registered(&key, &challenge, UP | AT);
    let answer = Registration {
        client_data_json: &client,
        attestation_object: &object,
    };
    assert_eq!(
        register(&rp(), &challenge, answer),
        Err(WebauthnError::Verification)
    );
    let (_, object) = registered(&key, &challenge, UP | UV | AT);
    let client = client_data("webauthn.get", &challenge, &rp().origin);
    let answer = Registration {
        client_data_json: &client,
        attestation_object: &object,
    };
    assert_eq!(
        register(&rp(), &challenge, answer),
        Err(WebauthnError::WrongType("webauthn.get".into()))
    );
}

#[test]
fn bytes_that_are_not_authenticator_data_are_refused_not_panicked_on() {
    for bytes in [&[][..], &[0; 36][..], &[0; 60][..]] {
        assert!(matches!(
            AuthenticatorData::parse(bytes),
            Err(WebauthnError::Malformed(_))
        ));
    }
    // Flagged as attested, with a credential id longer than its bytes.
    let mut data = auth_data(&rp().id, UP | UV | AT, 0, None);
    data.extend_from_slice(&[0; 16]);
    data.extend_from_slice(&500u16.to_be_bytes());
    assert!(matches!(
        AuthenticatorData::parse(&data),
        Err(WebauthnError::Malformed(_))
    ));
    let answer = Registration {
        client_data_json: b"not json",
        attestation_object: b"",
    };
    assert!(matches!(
        register(&rp(), &[0; 32], answer),
        Err(WebauthnError::Malformed(_))
    ));
}

#[test]
fn an_rsa_key_is_read_and_an_unknown_one_named() {
    use ciborium::Value;
    let int = |n: i64| Value::Integer(n.into());
    let rsa = Value::Map(vec![
        (int(1), int(3)),
        (int(3), int(-257)),
        (int(-1), Value::Bytes(vec![0xc3; 256])),
        (int(-2), Value::Bytes(vec![1, 0, 1])),
    ]);
    assert_eq!(
        data::cose_key(&rsa),
        Ok(PublicKey::Rs256 {
            n: vec![0xc3; 256],
            e: vec![1, 0, 1]
        })
    );
    let p384 = Value::Map(vec![
        (int(1), int(2)),
        (int(3), int(-35)),
        (int(-1), int(2)),
    ]);
    assert!(matches!(
        data::cose_key(&p384),
        Err(WebauthnError::Algorithm(_))
    ));
}
