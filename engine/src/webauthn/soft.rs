//! A passkey held in software, for tests: what a browser hands over when
//! it registers one and when it signs with it.

use ciborium::Value;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, Ed25519KeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};
use serde_json::json;

use super::*;

pub(crate) const UP: u8 = 0x01;
pub(crate) const UV: u8 = 0x04;
pub(crate) const AT: u8 = 0x40;

pub(crate) fn rp() -> RelyingParty {
    RelyingParty {
        id: "airlock.example.com".into(),
        origin: "https://airlock.example.com".into(),
    }
}

/// A passkey held in software.
pub(crate) enum Key {
    Es256(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
}

impl Key {
    pub(crate) fn es256() -> Self {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).unwrap();
        Key::Es256(
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng)
                .unwrap(),
        )
    }

    pub(crate) fn ed25519() -> Self {
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
        Key::Ed25519(Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap())
    }

    pub(crate) fn cose(&self) -> Vec<u8> {
        let int = |n: i64| Value::Integer(n.into());
        let map = match self {
            Key::Es256(pair) => {
                let point = pair.public_key().as_ref();
                vec![
                    (int(1), int(2)),
                    (int(3), int(-7)),
                    (int(-1), int(1)),
                    (int(-2), Value::Bytes(point[1..33].to_vec())),
                    (int(-3), Value::Bytes(point[33..].to_vec())),
                ]
            }
            Key::Ed25519(pair) => vec![
                (int(1), int(1)),
                (int(3), int(-8)),
                (int(-1), int(6)),
                (int(-2), Value::Bytes(pair.public_key().as_ref().to_vec())),
            ],
        };
        let mut out = Vec::new();
        ciborium::into_writer(&Value::Map(map), &mut out).unwrap();
        out
    }

    pub(crate) fn sign(&self, message: &[u8]) -> Vec<u8> {
        match self {
            Key::Es256(pair) => pair
                .sign(&SystemRandom::new(), message)
                .unwrap()
                .as_ref()
                .to_vec(),
            Key::Ed25519(pair) => pair.sign(message).as_ref().to_vec(),
        }
    }
}

pub(crate) fn client_data(kind: &str, challenge: &[u8], origin: &str) -> Vec<u8> {
    serde_json::json!({
        "type": kind,
        "challenge": URL_SAFE_NO_PAD.encode(challenge),
        "origin": origin,
        "crossOrigin": false,
    })
    .to_string()
    .into_bytes()
}

pub(crate) fn auth_data(
    rp_id: &str,
    flags: u8,
    count: u32,
    credential: Option<(&[u8], &Key)>,
) -> Vec<u8> {
    let mut data = Sha256::digest(rp_id.as_bytes()).to_vec();
    data.push(flags);
    data.extend_from_slice(&count.to_be_bytes());
    if let Some((id, key)) = credential {
        data.extend_from_slice(&[0; 16]);
        data.extend_from_slice(&(id.len() as u16).to_be_bytes());
        data.extend_from_slice(id);
        data.extend_from_slice(&key.cose());
    }
    data
}

pub(crate) fn attestation_object(auth_data: Vec<u8>) -> Vec<u8> {
    let object = Value::Map(vec![
        (Value::Text("fmt".into()), Value::Text("none".into())),
        (Value::Text("attStmt".into()), Value::Map(Vec::new())),
        (Value::Text("authData".into()), Value::Bytes(auth_data)),
    ]);
    let mut out = Vec::new();
    ciborium::into_writer(&object, &mut out).unwrap();
    out
}

impl Key {
    /// The credential a browser's `create()` gives, as `toJSON()` writes
    /// it, for `challenge` (base64url) at `rp` with `flags`.
    pub(crate) fn registered_json(
        &self,
        rp: &RelyingParty,
        challenge: &str,
        flags: u8,
    ) -> serde_json::Value {
        let challenge = URL_SAFE_NO_PAD.decode(challenge).unwrap();
        let id = self.credential_id();
        let data = auth_data(&rp.id, flags, 0, Some((&id, self)));
        json!({
            "id": URL_SAFE_NO_PAD.encode(&id),
            "type": "public-key",
            "response": {
                "clientDataJSON": URL_SAFE_NO_PAD.encode(client_data("webauthn.create", &challenge, &rp.origin)),
                "attestationObject": URL_SAFE_NO_PAD.encode(attestation_object(data)),
            },
        })
    }

    /// The credential a browser's `get()` gives, for `challenge`
    /// (base64url) at `rp` with `flags` and counter `count`.
    pub(crate) fn asserted_json(
        &self,
        rp: &RelyingParty,
        challenge: &str,
        flags: u8,
        count: u32,
    ) -> serde_json::Value {
        let challenge = URL_SAFE_NO_PAD.decode(challenge).unwrap();
        let client = client_data("webauthn.get", &challenge, &rp.origin);
        let data = auth_data(&rp.id, flags, count, None);
        let mut signed = data.clone();
        signed.extend_from_slice(&Sha256::digest(&client));
        json!({
            "id": URL_SAFE_NO_PAD.encode(self.credential_id()),
            "type": "public-key",
            "response": {
                "clientDataJSON": URL_SAFE_NO_PAD.encode(&client),
                "authenticatorData": URL_SAFE_NO_PAD.encode(&data),
                "signature": URL_SAFE_NO_PAD.encode(self.sign(&signed)),
            },
        })
    }

    /// Its credential id: the first bytes of its public key.
    pub(crate) fn credential_id(&self) -> Vec<u8> {
        let public = match self {
            Key::Es256(pair) => pair.public_key().as_ref().to_vec(),
            Key::Ed25519(pair) => pair.public_key().as_ref().to_vec(),
        };
        public[..16].to_vec()
    }
}
