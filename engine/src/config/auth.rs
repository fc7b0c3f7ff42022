//! The `auth:` block: how people sign in. With it, every page and server
//! function asks for a signed-in person; without it, nobody signs in and
//! whoever reaches the port is the one local person.

use serde::Deserialize;

use crate::policy::PolicyError;

/// How people sign in.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthSettings {
    /// People added with `airlock user add` sign in with their password.
    #[serde(default)]
    pub passwords: bool,
}

impl AuthSettings {
    /// The block, or why nobody could sign in with it.
    pub(super) fn checked(
        self,
        err: impl Fn(&str, String) -> PolicyError,
    ) -> Result<Self, PolicyError> {
        if !self.passwords {
            return Err(err(
                "auth",
                "no way to sign in is turned on: add `passwords: true`".into(),
            ));
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn the_auth_block_turns_sign_in_on() {
        assert_eq!(Config::default().auth, None);
        let config = Config::parse("a.yaml", "auth:\n  passwords: true\n").unwrap();
        assert!(config.auth.unwrap().passwords);
        let none = Config::parse("a.yaml", "auth: {}\n")
            .unwrap_err()
            .to_string();
        assert!(none.contains("passwords: true"), "{none}");
        let typo = Config::parse("a.yaml", "auth:\n  pasword: true\n")
            .unwrap_err()
            .to_string();
        assert!(typo.contains("auth"), "{typo}");
    }
}
