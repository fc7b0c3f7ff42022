//! The keys receipts are signed with. Each key has an id, and its private
//! half is derived from the receipt secret and that id (HMAC-SHA256 of the
//! id, as an Ed25519 seed): every replica given the secret signs alike, and
//! the database keeps only the public halves, so reading it is not enough
//! to sign. A new key is a new id; old ones stay listed in the key set, for
//! checking what they signed.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::signature::{Ed25519KeyPair, KeyPair, UnparsedPublicKey, ED25519};
use serde::{Deserialize, Serialize};

use super::ReceiptError;

/// What the seed's HMAC is taken over besides the key's id, so the secret
/// signs nothing else by accident.
const SEED_CONTEXT: &str = "airlock receipt key v1:";

/// A key receipts are signed with.
pub struct SigningKey {
    id: String,
    pair: Ed25519KeyPair,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey").field("id", &self.id).finish()
    }
}

impl SigningKey {
    /// The key `id` derived from `secret`.
    pub fn derive(secret: &[u8], id: &str) -> Self {
        let mac = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret);
        let seed = ring::hmac::sign(&mac, format!("{SEED_CONTEXT}{id}").as_bytes());
        // An HMAC-SHA256 is 32 bytes, an Ed25519 seed's length.
        let pair = Ed25519KeyPair::from_seed_unchecked(seed.as_ref())
            .expect("a 32-byte seed is an Ed25519 key");
        Self {
            id: id.to_owned(),
            pair,
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The public half, base64url (a JWK's `x`).
    pub fn public_key(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.pair.public_key().as_ref())
    }

    pub fn sign(&self, message: &[u8]) -> Vec<u8> {
        self.pair.sign(message).as_ref().to_vec()
    }

    /// The public half as a JWK.
    pub fn jwk(&self) -> Jwk {
        Jwk::ed25519(&self.id, &self.public_key())
    }
}

/// A public key, as `/.well-known/jwks.json` lists it (RFC 8037).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Jwk {
    pub kty: String,
    pub crv: String,
    /// The key, base64url.
    pub x: String,
    pub kid: String,
    #[serde(default)]
    pub alg: Option<String>,
    #[serde(rename = "use", default)]
    pub usage: Option<String>,
}

impl Jwk {
    /// The Ed25519 key `x` (base64url), named `kid`.
    pub fn ed25519(kid: &str, x: &str) -> Self {
        Self {
            kty: "OKP".into(),
            crv: "Ed25519".into(),
            x: x.to_owned(),
            kid: kid.to_owned(),
            alg: Some("EdDSA".into()),
            usage: Some("sig".into()),
        }
    }

    /// Checks that this key made `signature` over `message`.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), ReceiptError> {
        if self.kty != "OKP" || self.crv != "Ed25519" {
            return Err(ReceiptError::Algorithm(format!(
                "{} {}",
                self.kty, self.crv
            )));
        }
        let key = URL_SAFE_NO_PAD
            .decode(&self.x)
            .map_err(|_| ReceiptError::BadSignature)?;
        UnparsedPublicKey::new(&ED25519, key)
            .verify(message, signature)
            .map_err(|_| ReceiptError::BadSignature)
    }
}

/// A key set (RFC 7517), as served and as read back by a verifier.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Jwks {
    pub keys: Vec<Jwk>,
}

impl Jwks {
    pub fn find(&self, kid: &str) -> Option<&Jwk> {
        self.keys.iter().find(|key| key.kid == kid)
    }
}

/// The secret the keys derive from and the issuer receipts name, set once
/// as the server starts; an engine without them makes no receipts.
#[derive(Default)]
pub struct Signer(std::sync::OnceLock<SignerParts>);

/// What [`Signer`] holds once set.
pub struct SignerParts {
    pub secret: Vec<u8>,
    /// Airlock's public URL, or `airlock`.
    pub issuer: String,
    /// The key last derived: deriving one is a scalar multiplication, and
    /// every receipt (each completed poll) signs with the newest key. The
    /// lock is held only to swap the pointer.
    derived: std::sync::Mutex<Option<std::sync::Arc<SigningKey>>>,
}

impl SignerParts {
    /// The key `id` derived from the secret, kept for the next receipt.
    pub fn key(&self, id: &str) -> std::sync::Arc<SigningKey> {
        let mut derived = self.derived.lock().unwrap_or_else(|e| e.into_inner());
        match derived.as_ref().filter(|key| key.id == id) {
            Some(key) => key.clone(),
            None => {
                let key = std::sync::Arc::new(SigningKey::derive(&self.secret, id));
                *derived = Some(key.clone());
                key
            }
        }
    }
}

impl Signer {
    /// Sets the secret and issuer; a second call changes nothing.
    pub fn set(&self, secret: Vec<u8>, issuer: String) {
        let _ = self.0.set(SignerParts {
            secret,
            issuer,
            derived: Default::default(),
        });
    }

    pub fn get(&self) -> Option<&SignerParts> {
        self.0.get()
    }
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = if self.0.get().is_some() {
            "set"
        } else {
            "unset"
        };
        f.debug_tuple("Signer").field(&set).finish()
    }
}
