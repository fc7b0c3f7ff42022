//! People who sign in, what each may do, and their sessions. A session's
//! token is a bearer credential in a cookie: only its SHA-256 is stored, as
//! with review links, so a leaked database signs nobody in.

use base64::Engine as _;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::id::{ApiTokenId, PersonId, SessionId};
use super::token::hash_text;

/// What a person may do: an administrator manages people and every grant,
/// an approver decides what their groups may decide, a viewer only reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// People, grants everywhere, any revocation, the audit.
    Admin,
    /// Decides the calls their groups may decide.
    Approver,
    /// Reads only.
    Viewer,
}

impl Access {
    /// The stored and configured spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Admin => "admin",
            Access::Approver => "approver",
            Access::Viewer => "viewer",
        }
    }

    /// The access `text` names, if any.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "admin" => Some(Access::Admin),
            "approver" => Some(Access::Approver),
            "viewer" => Some(Access::Viewer),
            _ => None,
        }
    }
}

/// What a person asks to do, as their access decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Start a conversation or write in one.
    Converse,
    /// Decide a call (approve, edit, reject, answer, always allow it in its
    /// conversation) or hand out a review link for it.
    Decide,
    /// Always allow a tool in every conversation.
    AllowEverywhere,
    /// Take back an "always allow".
    RevokeGrant,
    /// Add and disable people.
    ManagePeople,
    /// Read and export the audit log.
    ReadAudit,
}

impl Access {
    /// Whether a person with this access may do `action`: administrators
    /// anything, approvers converse and decide, viewers only read, the
    /// audit included (an auditor is a viewer).
    pub fn may(self, action: Action) -> bool {
        match self {
            Access::Admin => true,
            Access::Approver => matches!(action, Action::Converse | Action::Decide),
            Access::Viewer => action == Action::ReadAudit,
        }
    }
}

/// Longest name a person signs in with, or a group is called, in characters.
pub const MAX_NAME_CHARS: usize = 64;

/// Whether `name` may name a person or a group: 1 to [`MAX_NAME_CHARS`]
/// lowercase letters, digits, `.`, `_` or `-`, starting with a letter or
/// digit. Such names read the same in a URL, a log line and a terminal.
pub fn is_plain_name(name: &str) -> bool {
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c);
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name.chars().all(allowed)
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
}

/// Longest e-mail address, in characters (RFC 5321's path limit).
pub const MAX_EMAIL_CHARS: usize = 254;

/// `text` as a person's e-mail address is kept: trimmed and lowercase, if it
/// is one address (`local@domain`, no spaces, quotes, brackets or commas),
/// so one spelling finds one person.
pub fn plain_email(text: &str) -> Option<String> {
    let email = text.trim().to_lowercase();
    let (local, domain) = email.split_once('@')?;
    let allowed = |c: char| !c.is_whitespace() && !c.is_control() && !"@<>()[],;:\\\"".contains(c);
    let fits = !local.is_empty()
        && local.len() <= 64
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && email.chars().count() <= MAX_EMAIL_CHARS;
    (fits && local.chars().all(allowed) && domain.chars().all(allowed)).then_some(email)
}

/// A person who signs in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Person {
    pub id: PersonId,
    /// What they sign in with: lowercase letters, digits, `.`, `_` and `-`.
    pub name: String,
    /// How the pages and records show them.
    pub display_name: String,
    pub access: Access,
    /// Their e-mail address, lowercase: how a Slack button finds who pressed
    /// it. An OpenID provider's verified address replaces it at sign-in.
    #[serde(default)]
    pub email: Option<String>,
    /// When an administrator disabled them; their sessions ended then.
    pub disabled_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// A person as a record names them: their id, and their display name as it
/// was then, so the record reads the same after they are renamed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonRef {
    pub id: PersonId,
    pub name: String,
}

/// A signed-in session of one person. It ends when it has been idle too
/// long, at its absolute end, at sign-out, or when its person is disabled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub id: SessionId,
    pub person_id: PersonId,
    pub created_at: DateTime<Utc>,
    /// The last request it authenticated (to the minute: see `people.rs`).
    pub last_seen_at: DateTime<Utc>,
    /// Its absolute end, however active it is.
    pub expires_at: DateTime<Utc>,
}

/// A personal API token of one person, as their list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiToken {
    pub id: ApiTokenId,
    pub person_id: PersonId,
    /// What the person called it ("deploy script").
    pub label: String,
    pub created_at: DateTime<Utc>,
    /// The last request it authenticated (to the minute, as sessions).
    pub last_used_at: Option<DateTime<Utc>>,
}

/// What every personal API token starts with, so secret scanners and
/// people recognise one, and the server tells it from a gateway key.
pub const API_TOKEN_PREFIX: &str = "airlock_pat_";

/// A fresh session token, handed out once in a cookie and then forgotten.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionToken(String);

// The token is a credential: it never reaches a log line.
impl std::fmt::Debug for SessionToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionToken(…)")
    }
}

impl SessionToken {
    /// 32 fresh random bytes, base64url without padding.
    pub fn mint() -> Self {
        let bytes: [u8; 32] = rand::random();
        Self(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
    }

    /// A token as a client presented it.
    pub fn presented(text: &str) -> Self {
        Self(text.to_owned())
    }

    /// The token as it goes into the cookie.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What the store keeps and looks sessions up by: its SHA-256, in hex.
    pub fn hash(&self) -> String {
        hash_text(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_kept_lowercase_and_single() {
        assert_eq!(
            plain_email("  Ana.Lima@Example.COM "),
            Some("ana.lima@example.com".into())
        );
        assert_eq!(
            plain_email("a+ops@corp.example"),
            Some("a+ops@corp.example".into())
        );
        for wrong in [
            "",
            "ana",
            "@example.com",
            "ana@",
            "ana@localhost",
            "ana@example.com, bo@example.com",
            "Ana <ana@example.com>",
            "ana@@example.com",
            "a na@example.com",
            "ana@.example.com",
        ] {
            assert_eq!(plain_email(wrong), None, "{wrong:?}");
        }
        let long = format!("{}@example.com", "a".repeat(65));
        assert_eq!(plain_email(&long), None);
    }

    #[test]
    fn access_round_trips_through_its_spelling() {
        for access in [Access::Admin, Access::Approver, Access::Viewer] {
            assert_eq!(Access::parse(access.as_str()), Some(access));
        }
        assert_eq!(Access::parse("root"), None);
    }

    #[test]
    fn access_decides_what_a_person_may_do() {
        use Action::*;
        let table = [
            (Access::Admin, [true, true, true, true, true]),
            (Access::Approver, [true, true, false, false, false]),
            (Access::Viewer, [false, false, false, false, false]),
        ];
        for (access, allowed) in table {
            for (action, expected) in [Converse, Decide, AllowEverywhere, RevokeGrant]
                .into_iter()
                .zip(allowed)
            {
                assert_eq!(access.may(action), expected, "{access:?} {action:?}");
            }
        }
    }

    #[test]
    fn tokens_are_fresh_and_only_their_hash_is_kept() {
        let (a, b) = (SessionToken::mint(), SessionToken::mint());
        assert_ne!(a, b);
        assert_eq!(a.as_str().len(), 43);
        assert_eq!(a.hash(), SessionToken::presented(a.as_str()).hash());
        assert_ne!(a.hash(), a.as_str());
        assert_eq!(format!("{a:?}"), "SessionToken(…)");
    }
}
