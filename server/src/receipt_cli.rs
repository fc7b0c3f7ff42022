//! `airlock receipt verify`: checks a decision's receipt as a service
//! downstream would, without Airlock's database: against a key set (a file,
//! or fetched from a running Airlock) and, when given, the arguments about
//! to be acted on. `airlock keys rotate` makes a new signing key; the old
//! ones stay in the key set for what they signed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use engine::clock::SystemClock;
use engine::receipts::{self, Jwks};
use engine::Engine;

use crate::Settings;

/// What `receipt verify` exits with when the receipt is refused.
pub const REFUSED: u8 = 1;

/// Where the key set comes from.
#[derive(Debug, Clone)]
pub enum Keys {
    /// A JWKS file, for checking with no network at all.
    File(PathBuf),
    /// A key set's address (`…/.well-known/jwks.json`).
    Url(String),
}

impl Keys {
    /// A path, or an `http(s)://` address.
    pub fn parse(text: &str) -> Self {
        match text.starts_with("http://") || text.starts_with("https://") {
            true => Keys::Url(text.to_owned()),
            false => Keys::File(PathBuf::from(text)),
        }
    }

    async fn read(&self) -> anyhow::Result<Jwks> {
        match self {
            Keys::File(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read the key set {}", path.display()))?;
                serde_json::from_str(&text)
                    .with_context(|| format!("{} is not a JSON Web Key Set", path.display()))
            }
            Keys::Url(url) => {
                let answer = reqwest::get(url)
                    .await
                    .and_then(|answer| answer.error_for_status())
                    .with_context(|| format!("cannot fetch the key set at {url}"))?;
                answer
                    .json()
                    .await
                    .with_context(|| format!("{url} did not answer with a JSON Web Key Set"))
            }
        }
    }
}

/// Checks `receipt` against the key set and, when given, `arguments` (JSON
/// text); prints what it says, or why it is refused (exit 1).
pub async fn verify(
    receipt: &str,
    arguments: Option<&str>,
    keys: &Keys,
) -> anyhow::Result<ExitCode> {
    let arguments: Option<serde_json::Value> = arguments
        .map(serde_json::from_str)
        .transpose()
        .context("--args is not JSON")?;
    let keys = keys.read().await?;
    match receipts::verify(receipt, &keys, chrono::Utc::now(), arguments.as_ref()) {
        Ok(claims) => {
            let verdict = if claims.approved {
                "approved"
            } else {
                "not approved"
            };
            println!(
                "valid: call {} ({} from {}) {verdict} ({}) by {}",
                claims.call_id, claims.tool, claims.source, claims.decision, claims.decided_by
            );
            if claims.approvers.len() > 1 {
                println!("approvers: {}", claims.approvers.join(", "));
            }
            let expires = claims
                .expires_at()
                .map_or_else(|| claims.exp.to_string(), |at| engine::domain::rfc3339(&at));
            println!("issued by {}, good until {expires}", claims.iss);
            match arguments {
                Some(_) => println!("for exactly the arguments given"),
                None => println!(
                    "arguments not checked (give --args): their SHA-256 is {}",
                    claims.arguments_sha256
                ),
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(refused) => {
            eprintln!("refused ({}): {refused}", refused.code());
            Ok(ExitCode::from(REFUSED))
        }
    }
}

/// Makes a new receipt key from this server's secret and prints its id.
pub async fn rotate(settings: &Settings) -> anyhow::Result<()> {
    let store = crate::open_store(settings).await?;
    let engine = Engine::new(store, Arc::new(SystemClock), Default::default());
    crate::sign_receipts(&engine, settings)?;
    let id = engine.rotate_receipt_key().await?;
    println!("{id} signs receipts from now on; the older keys still verify what they signed");
    Ok(())
}
