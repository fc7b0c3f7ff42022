//! The `auth:` block: how people sign in, and the approver groups. With it,
//! every page and server function asks for a signed-in person; without it,
//! nobody signs in and whoever reaches the port is the one local person.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::domain::person::is_plain_name;
use crate::domain::Access;
use crate::policy::{PolicyConfig, PolicyError};

/// How people sign in, and who is in which approver group.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthSettings {
    /// People added with `airlock user add` sign in with their password.
    #[serde(default)]
    pub passwords: bool,
    /// Approver groups by name, each with the names of its members. A
    /// policy's `approvers:` names these groups.
    #[serde(default)]
    pub groups: BTreeMap<String, Vec<String>>,
    /// Signing in with an OpenID provider.
    #[serde(default)]
    pub oidc: Option<OidcSettings>,
}

/// Signing in with an OpenID Connect provider (authorization code with
/// PKCE). The client secret comes from `AIRLOCK_OIDC_CLIENT_SECRET`, never
/// from this file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OidcSettings {
    /// The provider's issuer URL, where its discovery document lives.
    pub issuer: String,
    /// Airlock's client id at the provider.
    pub client_id: String,
    /// The sign-in button's words.
    #[serde(default = "default_label")]
    pub label: String,
    /// The access of someone who signs in for the first time: `viewer`
    /// (the default) or `approver`. Administrators make administrators.
    #[serde(default = "default_access")]
    pub access: Access,
}

fn default_label() -> String {
    "Sign in with single sign-on".to_owned()
}

fn default_access() -> Access {
    Access::Viewer
}

impl AuthSettings {
    /// The block, or why nobody could sign in with it.
    pub(super) fn checked(
        self,
        err: impl Fn(&str, String) -> PolicyError,
    ) -> Result<Self, PolicyError> {
        if !self.passwords && self.oidc.is_none() {
            return Err(err(
                "auth",
                "no way to sign in is turned on: add `passwords: true` or an `oidc:` block".into(),
            ));
        }
        if let Some(oidc) = &self.oidc {
            let web = |url: &str| url.starts_with("https://") || url.starts_with("http://");
            if !web(&oidc.issuer) {
                let problem = format!("`{}` is not an http(s) URL", oidc.issuer);
                return Err(err("auth.oidc.issuer", problem));
            }
            if oidc.access == Access::Admin {
                let problem = "people who sign in for the first time are viewers or approvers; an administrator makes administrators".into();
                return Err(err("auth.oidc.access", problem));
            }
        }
        let plain = "is not a plain name: lowercase letters, digits, `.`, `_` or `-`";
        for (group, members) in &self.groups {
            if !is_plain_name(group) {
                return Err(err("auth.groups", format!("`{group}` {plain}")));
            }
            for (i, member) in members.iter().enumerate() {
                if !is_plain_name(member) {
                    let key = format!("auth.groups.{group}[{i}]");
                    return Err(err(&key, format!("`{member}` {plain}")));
                }
            }
        }
        Ok(self)
    }

    /// The groups the person named `name` is in.
    pub fn groups_of(&self, name: &str) -> Vec<String> {
        let member = |members: &Vec<String>| members.iter().any(|m| m == name);
        self.groups
            .iter()
            .filter(|(_, members)| member(members))
            .map(|(group, _)| group.clone())
            .collect()
    }
}

/// Refuses approver groups that `auth.groups` does not define (a typo
/// would otherwise leave calls nobody may decide), and links that need a
/// sign-in where nobody signs in.
pub(super) fn check_groups(
    file: &str,
    prefix: &str,
    policy: &PolicyConfig,
    auth: Option<&AuthSettings>,
) -> Result<(), PolicyError> {
    if policy.review_link == crate::policy::ReviewLink::SignIn && auth.is_none() {
        return Err(PolicyError::new(
            file,
            format!("{prefix}.review_link"),
            "links that need signing in need an `auth:` block, so people can sign in",
        ));
    }
    // A passkey is a signed-in person's: without people, such calls could
    // never be approved.
    let block = policy.step_up.map(|_| "step_up".to_owned());
    let rules = policy.rules.iter().enumerate();
    let in_rules =
        rules.filter_map(|(r, rule)| rule.step_up.map(|_| format!("rules[{r}].step_up")));
    if let (Some(key), None) = (block.into_iter().chain(in_rules).next(), auth) {
        return Err(PolicyError::new(
            file,
            format!("{prefix}.{key}"),
            "a passkey is a signed-in person's: `step_up: passkey` needs an `auth:` block",
        ));
    }
    let named = policy
        .approvers
        .iter()
        .enumerate()
        .map(|(i, g)| (format!("approvers[{i}]"), g));
    let in_rules = policy.rules.iter().enumerate().flat_map(|(r, rule)| {
        let groups = rule.approvers.iter().flatten().enumerate();
        groups.map(move |(i, g)| (format!("rules[{r}].approvers[{i}]"), g))
    });
    for (key, group) in named.chain(in_rules) {
        let problem = match auth {
            None => {
                "approver groups need an `auth:` block that defines them in `groups:`".to_owned()
            }
            Some(auth) if !auth.groups.contains_key(group) => {
                format!("no group `{group}` in `auth.groups`")
            }
            Some(_) => continue,
        };
        return Err(PolicyError::new(file, format!("{prefix}.{key}"), problem));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::domain::Access;

    #[test]
    fn the_auth_block_turns_sign_in_on() {
        assert_eq!(Config::default().auth, None);
        let config = Config::parse("a.yaml", "auth:\n  passwords: true\n").unwrap();
        assert!(config.auth.unwrap().passwords);
        let none = Config::parse("a.yaml", "auth: {}\n")
            .unwrap_err()
            .to_string();
        assert!(none.contains("passwords: true"), "{none}");
        let sso = "auth:\n  oidc:\n    issuer: https://idp.example.com\n    client_id: airlock\n";
        let oidc = Config::parse("a.yaml", sso)
            .unwrap()
            .auth
            .unwrap()
            .oidc
            .unwrap();
        assert_eq!(
            (oidc.label.as_str(), oidc.access),
            ("Sign in with single sign-on", Access::Viewer)
        );
        let admin = format!("{sso}    access: admin\n");
        let e = Config::parse("a.yaml", &admin).unwrap_err().to_string();
        assert!(e.contains("auth.oidc.access"), "{e}");
        let typo = Config::parse("a.yaml", "auth:\n  pasword: true\n")
            .unwrap_err()
            .to_string();
        assert!(typo.contains("auth"), "{typo}");
    }

    #[test]
    fn groups_name_their_members() {
        let yaml = "auth:\n  passwords: true\n  groups:\n    ops: [ada, bo]\n    sec: [bo]\n";
        let auth = Config::parse("a.yaml", yaml).unwrap().auth.unwrap();
        assert_eq!(auth.groups_of("bo"), ["ops", "sec"]);
        assert_eq!(auth.groups_of("ada"), ["ops"]);
        assert!(auth.groups_of("cy").is_empty());
        let bad = "auth:\n  passwords: true\n  groups:\n    ops: [Ada]\n";
        let e = Config::parse("a.yaml", bad).unwrap_err().to_string();
        assert!(
            e.contains("auth.groups.ops[0]") && e.contains("`Ada`"),
            "{e}"
        );
    }
}
