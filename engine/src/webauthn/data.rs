//! The bytes an authenticator signs (authenticator data, §6.1), the CBOR
//! attestation object around them at registration (§6.5), and the COSE
//! public key inside (RFC 9053).

use ciborium::Value;

use super::{PublicKey, WebauthnError};

/// The flags byte (§6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    pub user_present: bool,
    pub user_verified: bool,
    pub backup_eligible: bool,
    pub backed_up: bool,
    attested: bool,
    extensions: bool,
}

impl Flags {
    fn of(byte: u8) -> Self {
        Self {
            user_present: byte & 0x01 != 0,
            user_verified: byte & 0x04 != 0,
            backup_eligible: byte & 0x08 != 0,
            backed_up: byte & 0x10 != 0,
            attested: byte & 0x40 != 0,
            extensions: byte & 0x80 != 0,
        }
    }
}

/// A credential a registration's authenticator data carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attested {
    pub id: Vec<u8>,
    pub public_key: PublicKey,
}

/// Authenticator data, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthenticatorData {
    pub rp_id_hash: [u8; 32],
    pub flags: Flags,
    pub sign_count: u32,
    pub credential: Option<Attested>,
}

/// The longest credential id §6.5.1 allows.
const MAX_CREDENTIAL_ID: usize = 1023;

fn malformed(what: &str) -> WebauthnError {
    WebauthnError::Malformed(what.to_owned())
}

impl AuthenticatorData {
    /// Reads `bytes`: 32 bytes of the site's hash, the flags, the counter,
    /// then the attested credential (AT) and extensions (ED) when flagged;
    /// nothing else may follow.
    pub fn parse(bytes: &[u8]) -> Result<Self, WebauthnError> {
        let short = || malformed("authenticator data is too short");
        let head = bytes.get(..37).ok_or_else(short)?;
        let mut rp_id_hash = [0; 32];
        rp_id_hash.copy_from_slice(&head[..32]);
        let flags = Flags::of(head[32]);
        let sign_count = u32::from_be_bytes([head[33], head[34], head[35], head[36]]);
        let mut rest = &bytes[37..];
        let credential = match flags.attested {
            false => None,
            true => {
                let len = rest.get(16..18).ok_or_else(short)?;
                let len = usize::from(u16::from_be_bytes([len[0], len[1]]));
                if len > MAX_CREDENTIAL_ID {
                    return Err(malformed("the credential id is too long"));
                }
                let id = rest.get(18..18 + len).ok_or_else(short)?.to_vec();
                rest = &rest[18 + len..];
                let key: Value = ciborium::from_reader(&mut rest)
                    .map_err(|e| WebauthnError::Malformed(format!("the public key: {e}")))?;
                Some(Attested {
                    id,
                    public_key: cose_key(&key)?,
                })
            }
        };
        if flags.extensions {
            let _: Value = ciborium::from_reader(&mut rest)
                .map_err(|e| WebauthnError::Malformed(format!("the extensions: {e}")))?;
        }
        if !rest.is_empty() {
            return Err(malformed("authenticator data has bytes left over"));
        }
        Ok(Self {
            rp_id_hash,
            flags,
            sign_count,
            credential,
        })
    }
}

/// The authenticator data inside an attestation object. Its statement is
/// not checked: Airlock asks for no attestation, so a browser may send
/// `none` or, rarely, a format it did not strip.
pub(super) fn attested(object: &[u8]) -> Result<Vec<u8>, WebauthnError> {
    let value: Value = ciborium::from_reader(object)
        .map_err(|e| WebauthnError::Malformed(format!("the attestation object: {e}")))?;
    match entry(&value, &Value::Text("authData".into())) {
        Some(Value::Bytes(data)) => Ok(data.clone()),
        _ => Err(malformed(
            "the attestation object has no authenticator data",
        )),
    }
}

/// A map's value under `key`.
fn entry<'a>(map: &'a Value, key: &Value) -> Option<&'a Value> {
    map.as_map()?.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// An integer-keyed COSE map's entry.
fn label(map: &Value, key: i64) -> Option<&Value> {
    entry(map, &Value::Integer(key.into()))
}

fn integer(value: Option<&Value>) -> Option<i128> {
    value?.as_integer().map(i128::from)
}

fn bytes(value: Option<&Value>, len: usize) -> Result<&[u8], WebauthnError> {
    match value.and_then(Value::as_bytes) {
        Some(b) if b.len() == len => Ok(b),
        _ => Err(malformed("a public key coordinate has the wrong length")),
    }
}

/// A COSE key of the algorithms a registration offers: EC2 P-256 with
/// ES256 (kty 2, alg -7, crv 1, x -2, y -3), OKP Ed25519 with EdDSA (kty 1,
/// alg -8, crv 6, x -2), RSA with RS256 (kty 3, alg -257, n -1, e -2).
pub(super) fn cose_key(key: &Value) -> Result<PublicKey, WebauthnError> {
    let kty = integer(label(key, 1));
    let alg = integer(label(key, 3));
    let crv = integer(label(key, -1));
    match (kty, alg, crv) {
        (Some(2), Some(-7), Some(1)) => {
            let mut point = vec![0x04];
            point.extend_from_slice(bytes(label(key, -2), 32)?);
            point.extend_from_slice(bytes(label(key, -3), 32)?);
            Ok(PublicKey::Es256 { point })
        }
        (Some(1), Some(-8), Some(6)) => Ok(PublicKey::Ed25519 {
            key: bytes(label(key, -2), 32)?.to_vec(),
        }),
        (Some(3), Some(-257), None) => {
            let part = |at: i64| match label(key, at).and_then(Value::as_bytes) {
                Some(b) if !b.is_empty() && b.len() <= 1024 => Ok(b.clone()),
                _ => Err(malformed("an RSA key part has the wrong length")),
            };
            Ok(PublicKey::Rs256 {
                n: part(-1)?,
                e: part(-2)?,
            })
        }
        _ => Err(WebauthnError::Algorithm(format!(
            "kty {kty:?}, alg {alg:?}, crv {crv:?}"
        ))),
    }
}
