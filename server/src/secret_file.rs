//! The secret review callbacks (and sign-ins in progress with the OpenID
//! provider) are signed with: given in the environment, or generated once
//! into the data directory, readable by its owner only.

use anyhow::Context;

use crate::Settings;

/// The callback signing secret: `AIRLOCK_CALLBACK_SECRET`, else the one in
/// `<data dir>/callback-secret`, generated (readable by the owner only) on
/// first start so agents can be given it.
pub(crate) fn callback_secret(settings: &Settings) -> anyhow::Result<Vec<u8>> {
    if let Some(secret) = &settings.callback_secret {
        return Ok(secret.0.as_bytes().to_vec());
    }
    let path = settings.data_dir.join("callback-secret");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let text = text.trim();
        if !text.is_empty() {
            return Ok(text.as_bytes().to_vec());
        }
    }
    let bytes: [u8; 32] = rand::random();
    let text = hex::encode(bytes);
    write_private(&path, &text)
        .with_context(|| format!("cannot write the callback secret to {}", path.display()))?;
    tracing::info!(path = %path.display(), "generated the callback signing secret");
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
