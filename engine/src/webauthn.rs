//! Passkeys (WebAuthn Level 3) as a relying party: a new credential's
//! registration and an assertion checked, as §7.1 and §7.2 say. Pure.
//!
//! Written on `ring` rather than taken from a WebAuthn crate: a step-up
//! binds the assertion to one call by putting the call's digest in the
//! challenge, and none of the kept crates lets the caller choose the
//! challenge. Attestation is not asked for (`none`): a passkey proves the
//! person holds it, not which device it lives on.

mod data;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_ASN1, ED25519};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use data::{AuthenticatorData, Flags};

/// Who the passkeys are for: the site's host (`rp.id`) and the origin
/// browsers must report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelyingParty {
    pub id: String,
    pub origin: String,
}

/// A credential's public key, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "alg")]
pub enum PublicKey {
    /// ECDSA P-256 with SHA-256 (COSE -7): the uncompressed point.
    #[serde(rename = "ES256")]
    Es256 { point: Vec<u8> },
    /// Ed25519 (COSE -8): the 32-byte key.
    #[serde(rename = "EdDSA")]
    Ed25519 { key: Vec<u8> },
    /// RSASSA-PKCS1-v1_5 with SHA-256 (COSE -257, Windows Hello): the
    /// modulus and exponent, big-endian.
    #[serde(rename = "RS256")]
    Rs256 { n: Vec<u8>, e: Vec<u8> },
}

impl PublicKey {
    /// The COSE algorithms a registration offers, in the order browsers
    /// expect them: ES256 first, RS256 for Windows Hello.
    pub const ALGORITHMS: [i64; 3] = [-7, -8, -257];

    fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), WebauthnError> {
        let checked = match self {
            PublicKey::Es256 { point } => {
                UnparsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, point).verify(message, signature)
            }
            PublicKey::Ed25519 { key } => {
                UnparsedPublicKey::new(&ED25519, key).verify(message, signature)
            }
            PublicKey::Rs256 { n, e } => ring::signature::RsaPublicKeyComponents { n, e }.verify(
                &ring::signature::RSA_PKCS1_2048_8192_SHA256,
                message,
                signature,
            ),
        };
        checked.map_err(|_| WebauthnError::Signature)
    }
}

/// A credential a registration made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCredential {
    pub id: Vec<u8>,
    pub public_key: PublicKey,
    pub sign_count: u32,
    /// Whether it may be synced to the person's other devices (BE).
    pub backup_eligible: bool,
}

/// A stored credential, as an assertion is checked against it.
#[derive(Debug, Clone, Copy)]
pub struct Stored<'a> {
    pub public_key: &'a PublicKey,
    pub sign_count: u32,
    pub backup_eligible: bool,
}

/// Why a registration or an assertion is refused; each has a stable code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebauthnError {
    #[error("the passkey's answer cannot be read: {0}")]
    Malformed(String),
    #[error("the passkey answered a different request ({0})")]
    WrongType(String),
    #[error("the passkey signed a different challenge: ask again")]
    Challenge,
    #[error("the passkey was used on another site ({0})")]
    Origin(String),
    #[error("the passkey is for another site")]
    RelyingParty,
    #[error("the passkey did not confirm that you were present")]
    Presence,
    #[error("the passkey did not verify you (a PIN, a fingerprint or a face): it must")]
    Verification,
    #[error("the passkey's signature does not hold")]
    Signature,
    #[error("the passkey's counter went back: it may have been copied")]
    Counter,
    #[error("the passkey uses an algorithm Airlock does not take ({0})")]
    Algorithm(String),
}

impl WebauthnError {
    /// The stable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            WebauthnError::Malformed(_) => "passkey_malformed",
            WebauthnError::WrongType(_) => "passkey_wrong_type",
            WebauthnError::Challenge => "passkey_challenge",
            WebauthnError::Origin(_) => "passkey_origin",
            WebauthnError::RelyingParty => "passkey_relying_party",
            WebauthnError::Presence => "passkey_presence",
            WebauthnError::Verification => "passkey_verification",
            WebauthnError::Signature => "passkey_signature",
            WebauthnError::Counter => "passkey_counter",
            WebauthnError::Algorithm(_) => "passkey_algorithm",
        }
    }
}

/// What a browser's `navigator.credentials.create()` answered.
#[derive(Debug, Clone, Copy)]
pub struct Registration<'a> {
    pub client_data_json: &'a [u8],
    pub attestation_object: &'a [u8],
}

/// What a browser's `navigator.credentials.get()` answered.
#[derive(Debug, Clone, Copy)]
pub struct Assertion<'a> {
    pub client_data_json: &'a [u8],
    pub authenticator_data: &'a [u8],
    pub signature: &'a [u8],
}

/// Checks a registration made for `challenge` (§7.1), with the person
/// verified: the credential it made.
pub fn register(
    rp: &RelyingParty,
    challenge: &[u8],
    answer: Registration<'_>,
) -> Result<NewCredential, WebauthnError> {
    check_client_data(rp, "webauthn.create", challenge, answer.client_data_json)?;
    let auth_data = data::attested(answer.attestation_object)?;
    let parsed = AuthenticatorData::parse(&auth_data)?;
    check_flags(rp, &parsed)?;
    let attested = parsed
        .credential
        .ok_or_else(|| WebauthnError::Malformed("a registration names no credential".into()))?;
    Ok(NewCredential {
        id: attested.id,
        public_key: attested.public_key,
        sign_count: parsed.sign_count,
        backup_eligible: parsed.flags.backup_eligible,
    })
}

/// Checks an assertion made for `challenge` (§7.2) with the person
/// verified: the credential's new signature count.
pub fn assert(
    rp: &RelyingParty,
    challenge: &[u8],
    stored: Stored<'_>,
    answer: Assertion<'_>,
) -> Result<u32, WebauthnError> {
    check_client_data(rp, "webauthn.get", challenge, answer.client_data_json)?;
    let parsed = AuthenticatorData::parse(answer.authenticator_data)?;
    check_flags(rp, &parsed)?;
    if parsed.flags.backup_eligible != stored.backup_eligible {
        return Err(WebauthnError::Malformed(
            "the passkey's backup flag changed".into(),
        ));
    }
    let mut signed = answer.authenticator_data.to_vec();
    signed.extend_from_slice(&Sha256::digest(answer.client_data_json));
    stored.public_key.verify(&signed, answer.signature)?;
    // Synced passkeys count nothing (always 0); a counter that does count
    // must go up, or the key was copied.
    let counts = parsed.sign_count != 0 || stored.sign_count != 0;
    if counts && parsed.sign_count <= stored.sign_count {
        return Err(WebauthnError::Counter);
    }
    Ok(parsed.sign_count)
}

/// `clientDataJSON`: its type, challenge and origin (§7.1 steps 7–12).
fn check_client_data(
    rp: &RelyingParty,
    kind: &str,
    challenge: &[u8],
    client_data_json: &[u8],
) -> Result<(), WebauthnError> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct ClientData {
        #[serde(rename = "type")]
        kind: String,
        challenge: String,
        origin: String,
        #[serde(default)]
        cross_origin: bool,
    }
    let data: ClientData = serde_json::from_slice(client_data_json)
        .map_err(|e| WebauthnError::Malformed(format!("clientDataJSON: {e}")))?;
    if data.kind != kind {
        return Err(WebauthnError::WrongType(data.kind));
    }
    let given = URL_SAFE_NO_PAD
        .decode(data.challenge.trim_end_matches('='))
        .map_err(|_| WebauthnError::Challenge)?;
    // Equal in constant time: a challenge is a secret until it is used.
    if !bool::from(subtle::ConstantTimeEq::ct_eq(given.as_slice(), challenge)) {
        return Err(WebauthnError::Challenge);
    }
    if data.origin != rp.origin || data.cross_origin {
        return Err(WebauthnError::Origin(data.origin));
    }
    Ok(())
}

/// The authenticator data's site and flags: this site's, the person
/// present and verified.
fn check_flags(rp: &RelyingParty, parsed: &AuthenticatorData) -> Result<(), WebauthnError> {
    if parsed.rp_id_hash[..] != Sha256::digest(rp.id.as_bytes())[..] {
        return Err(WebauthnError::RelyingParty);
    }
    if !parsed.flags.user_present {
        return Err(WebauthnError::Presence);
    }
    if !parsed.flags.user_verified {
        return Err(WebauthnError::Verification);
    }
    if parsed.flags.backed_up && !parsed.flags.backup_eligible {
        return Err(WebauthnError::Malformed(
            "backed up but not eligible".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod soft;
#[cfg(test)]
mod tests;
