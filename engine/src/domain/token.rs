//! The review link's bearer token (HITL Protocol §7): 32 random bytes in
//! base64url (43 characters). Only its SHA-256 is stored, and it is checked in
//! constant time, so a leaked database yields no working links.

use base64::Engine as _;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A freshly minted token, to be handed out once and then forgotten.
#[derive(Clone, PartialEq, Eq)]
pub struct ReviewToken(String);

// The token is a credential: it never reaches a log line.
impl std::fmt::Debug for ReviewToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReviewToken(…)")
    }
}

impl ReviewToken {
    /// 32 fresh random bytes, base64url without padding.
    pub fn mint() -> Self {
        let bytes: [u8; 32] = rand::random();
        Self(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
    }

    /// The token as it goes into the URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What the store keeps: the SHA-256 of the token, in hex.
    pub fn hash(&self) -> String {
        hash_text(&self.0)
    }
}

/// The SHA-256 of `text`, in lowercase hex.
pub fn hash_text(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    hex::encode(digest)
}

/// Whether `presented` hashes to one of `stored`, compared in constant time.
/// Every stored hash is compared, so the time does not tell which matched.
pub fn matches(presented: &str, stored: &[String]) -> bool {
    // A token of the wrong length cannot be ours; refusing it early reveals
    // only the public length.
    if presented.len() != 43 {
        return false;
    }
    let hash = hash_text(presented);
    let mut found = subtle::Choice::from(0);
    for candidate in stored {
        if candidate.len() == hash.len() {
            found |= candidate.as_bytes().ct_eq(hash.as_bytes());
        }
    }
    found.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_43_url_safe_characters_and_differ() {
        let a = ReviewToken::mint();
        let b = ReviewToken::mint();
        assert_eq!(a.as_str().len(), 43);
        assert!(a
            .as_str()
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_ne!(a, b);
        assert_eq!(format!("{a:?}"), "ReviewToken(…)");
    }

    #[test]
    fn hashes_are_lowercase_hex_sha256_as_stored_ones_are() {
        assert_eq!(
            hash_text("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn only_the_minted_token_matches_its_hash() {
        let token = ReviewToken::mint();
        let other = ReviewToken::mint();
        let stored = vec![other.hash(), token.hash()];
        assert!(matches(token.as_str(), &stored));
        assert!(!matches(ReviewToken::mint().as_str(), &stored));
        let mut tampered = token.as_str().to_owned();
        tampered.replace_range(0..1, if tampered.starts_with('A') { "B" } else { "A" });
        assert!(!matches(&tampered, &stored));
        assert!(!matches("", &stored));
        assert!(!matches(token.as_str(), &[]));
    }

    #[test]
    fn hashes_are_sha256_hex() {
        assert_eq!(
            hash_text("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
