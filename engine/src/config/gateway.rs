//! The `gateway:` block: the API keys external agents ask with.

use serde::Deserialize;

use crate::policy::PolicyError;

/// An API key external agents authenticate with, kept only as a hash.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiKey {
    /// The client's name, recorded with every case it creates.
    pub name: String,
    /// The SHA-256 of the key, in hex.
    pub sha256: String,
    /// The person (by the name they sign in with) whose agent holds the
    /// key: with separation of duties, they may not approve its calls.
    #[serde(default)]
    pub person: Option<String>,
}

/// Who may use the gateway.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewaySettings {
    /// The accepted keys; none means the gateway refuses every request.
    #[serde(default)]
    pub api_keys: Vec<ApiKey>,
}

impl GatewaySettings {
    /// The name of the client whose key `presented` is, compared in
    /// constant time against every configured hash.
    pub fn client_for(&self, presented: &str) -> Option<&str> {
        use subtle::ConstantTimeEq;
        let hash = crate::domain::token::hash_text(presented);
        let mut found = None;
        for key in &self.api_keys {
            let same: bool = key
                .sha256
                .to_ascii_lowercase()
                .as_bytes()
                .ct_eq(hash.as_bytes())
                .into();
            if same && found.is_none() {
                found = Some(key.name.as_str());
            }
        }
        found
    }

    /// The person the key of client `name` names, if it names one.
    pub fn person_of(&self, client: &str) -> Option<&str> {
        let key = self.api_keys.iter().find(|k| k.name == client)?;
        key.person.as_deref()
    }

    pub(super) fn check(
        &self,
        err: impl Fn(&str, String) -> PolicyError,
    ) -> Result<(), PolicyError> {
        for (i, key) in self.api_keys.iter().enumerate() {
            let at = format!("gateway.api_keys[{i}]");
            if key.name.trim().is_empty() {
                return Err(err(&at, "give the key a name".into()));
            }
            if let Some(person) = &key.person {
                if !crate::domain::person::is_plain_name(person) {
                    let problem = format!("`{person}` is not the name someone signs in with");
                    return Err(err(&format!("{at}.person"), problem));
                }
            }
            let hex = key.sha256.len() == 64 && key.sha256.bytes().all(|b| b.is_ascii_hexdigit());
            if !hex {
                return Err(err(
                    &format!("{at}.sha256"),
                    "expected the key's SHA-256 as 64 hex digits (printf %s \"$KEY\" | sha256sum)"
                        .into(),
                ));
            }
        }
        Ok(())
    }
}
