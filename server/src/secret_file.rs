//! The secrets this server keeps in its data directory, readable by its
//! owner only, unless the environment gives them: the one review callbacks
//! (and sign-ins in progress with the OpenID provider) are signed with,
//! which agents are given to check callbacks; and the one receipts' keys
//! are derived from, which nobody else is ever given.

use anyhow::Context;

use crate::settings::Secret;
use crate::Settings;

/// The callback signing secret: `AIRLOCK_CALLBACK_SECRET`, else the one in
/// `<data dir>/callback-secret`, generated on first start so agents can be
/// given it.
pub(crate) fn callback_secret(settings: &Settings) -> anyhow::Result<Vec<u8>> {
    kept_secret(
        settings,
        settings.callback_secret.as_ref(),
        "callback-secret",
    )
}

/// The secret receipts' keys derive from: `AIRLOCK_RECEIPT_SECRET` (the
/// same on every replica), else the one in `<data dir>/receipt-secret`,
/// generated on first start. Apart from the callback secret, since agents
/// hold that one and must not be able to sign.
pub(crate) fn receipt_secret(settings: &Settings) -> anyhow::Result<Vec<u8>> {
    kept_secret(settings, settings.receipt_secret.as_ref(), "receipt-secret")
}

/// `given`, else the secret in the data directory's file `name`, written
/// there (32 random bytes, hex) when there is none.
fn kept_secret(settings: &Settings, given: Option<&Secret>, name: &str) -> anyhow::Result<Vec<u8>> {
    if let Some(secret) = given {
        return Ok(secret.0.as_bytes().to_vec());
    }
    let path = settings.data_dir.join(name);
    if let Ok(text) = std::fs::read_to_string(&path) {
        let text = text.trim();
        if !text.is_empty() {
            return Ok(text.as_bytes().to_vec());
        }
    }
    let bytes: [u8; 32] = rand::random();
    let text = hex::encode(bytes);
    write_private(&path, &text)
        .with_context(|| format!("cannot write the {name} to {}", path.display()))?;
    tracing::info!(path = %path.display(), "generated the {name}");
    Ok(text.into_bytes())
}

#[cfg(unix)]
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(text.as_bytes())
}

#[cfg(not(unix))]
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}
