//! Passwords, hashed with Argon2id at OWASP's parameters (19 MiB, two
//! passes, one lane) and checked in constant time. Hashing takes tens of
//! milliseconds of CPU on purpose, so it runs off the async threads.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

use crate::error::EngineError;

/// Shortest password a person may choose (OWASP ASVS 2.1.1).
pub const MIN_PASSWORD_CHARS: usize = 12;

/// Longest password: long passphrases pass, a megabyte of text does not.
pub const MAX_PASSWORD_CHARS: usize = 256;

fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("OWASP's Argon2id parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Refuses a password too short or too long to accept.
pub(crate) fn check(password: &str) -> Result<(), EngineError> {
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        return Err(EngineError::invalid(
            "password",
            format!("a password has at least {MIN_PASSWORD_CHARS} characters"),
        ));
    }
    if chars > MAX_PASSWORD_CHARS {
        return Err(EngineError::invalid(
            "password",
            format!("a password has at most {MAX_PASSWORD_CHARS} characters"),
        ));
    }
    EngineError::refuse_nul("password", "a password", password)
}

/// The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`) of `password`.
pub(crate) async fn hash(password: String) -> Result<String, EngineError> {
    tokio::task::spawn_blocking(move || {
        let salt: [u8; 16] = rand::random();
        let salt = SaltString::encode_b64(&salt).expect("16 bytes make a valid salt");
        argon2()
            .hash_password(password.as_bytes(), &salt)
            .map(|hash| hash.to_string())
            .map_err(|e| EngineError::invalid("password", format!("cannot hash it: {e}")))
    })
    .await
    .map_err(|e| EngineError::invalid("password", format!("cannot hash it: {e}")))?
}

/// Whether `password` matches `stored` (a PHC string). With no stored hash
/// (no such person, or one who signs in elsewhere) a hash is still checked,
/// so the answer takes as long either way and tells nobody which it was.
pub(crate) async fn matches(password: String, stored: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
        let real = stored.is_some();
        let stored = stored.unwrap_or_else(|| DECOY.to_owned());
        let Ok(parsed) = PasswordHash::new(&stored) else {
            return false;
        };
        let ok = argon2()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        ok && real
    })
    .await
    .unwrap_or(false)
}

/// A hash no password is known to match, checked when there is nothing real
/// to check, at the same parameters as every stored hash.
const DECOY: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$ZGVjb3lkZWNveWRlY295$3wdqTnOT08CWBSyqVfAbQ8zxH7Q2O4FT6jtbp+H0PC0";

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_matches_its_password_only() {
        let stored = hash("correct horse battery".into()).await.unwrap();
        assert!(
            stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{stored}"
        );
        assert!(matches("correct horse battery".into(), Some(stored.clone())).await);
        assert!(!matches("correct horse battery!".into(), Some(stored.clone())).await);
        let again = hash("correct horse battery".into()).await.unwrap();
        assert_ne!(stored, again, "every hash has its own salt");
    }

    #[tokio::test]
    async fn without_a_stored_hash_nothing_matches() {
        assert!(!matches("anything at all".into(), None).await);
        assert!(!matches("anything at all".into(), Some("not a hash".into())).await);
    }

    #[test]
    fn the_decoy_is_a_hash_at_the_same_parameters() {
        let decoy = PasswordHash::new(DECOY).unwrap();
        assert_eq!(decoy.algorithm.as_str(), "argon2id");
        let params = Params::try_from(&decoy).unwrap();
        let costs = (params.m_cost(), params.t_cost(), params.p_cost());
        assert_eq!(costs, (19 * 1024, 2, 1));
    }

    #[test]
    fn short_long_and_nul_passwords_are_refused() {
        assert!(check("short").is_err());
        assert!(check(&"x".repeat(MAX_PASSWORD_CHARS + 1)).is_err());
        assert!(check("twelve chars\0").is_err());
        assert!(check("twelve chars").is_ok());
    }
}
