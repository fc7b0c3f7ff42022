//! The SMTP server e-mail notices go through (`AIRLOCK_SMTP_*`): its
//! address, the credentials and the sender, never in the configuration
//! file.

use super::{Secret, SettingsError};

/// The SMTP settings, when `AIRLOCK_SMTP_URL` is set.
#[derive(Debug, Clone)]
pub struct SmtpSettings {
    /// `smtps://host[:port]`, `smtp://host[:port]` (STARTTLS), or
    /// `smtp://host:port?tls=none` on this machine (`AIRLOCK_SMTP_URL`).
    pub url: String,
    /// `AIRLOCK_SMTP_USERNAME`.
    pub username: Option<String>,
    /// `AIRLOCK_SMTP_PASSWORD`.
    pub password: Option<Secret>,
    /// The sender, `Airlock <airlock@example.com>` (`AIRLOCK_SMTP_FROM`).
    pub from: String,
    /// The certificate authority of a server whose certificate comes from
    /// a private one (`AIRLOCK_SMTP_CA_FILE`, a PEM file).
    pub ca_file: Option<std::path::PathBuf>,
}

impl SmtpSettings {
    /// Reads them through `lookup`; none without `AIRLOCK_SMTP_URL`.
    pub fn from_lookup(
        lookup: &impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Self>, SettingsError> {
        let Some(url) = lookup("AIRLOCK_SMTP_URL") else {
            return Ok(None);
        };
        let from = lookup("AIRLOCK_SMTP_FROM").ok_or_else(|| SettingsError {
            name: "AIRLOCK_SMTP_FROM",
            problem: "e-mail needs a sender, like `Airlock <airlock@example.com>`".into(),
        })?;
        let smtp = Self {
            url,
            username: lookup("AIRLOCK_SMTP_USERNAME"),
            password: lookup("AIRLOCK_SMTP_PASSWORD").map(Secret),
            from,
            ca_file: lookup("AIRLOCK_SMTP_CA_FILE").map(Into::into),
        };
        Ok(Some(smtp))
    }

    /// The mailer these settings describe; a mistake in them names its
    /// variable.
    pub fn mailer(&self) -> Result<engine::reviews::notices::Mailer, SettingsError> {
        use engine::reviews::notices::{Mailer, MailerError};
        let settings = engine::reviews::notices::SmtpSettings {
            url: &self.url,
            username: self.username.as_deref(),
            password: self.password.as_ref().map(|p| p.0.as_str()),
            from: &self.from,
            ca_file: self.ca_file.as_deref(),
        };
        Mailer::new(settings).map_err(|e| SettingsError {
            name: match e {
                MailerError::From(_) => "AIRLOCK_SMTP_FROM",
                MailerError::CaFile(_) => "AIRLOCK_SMTP_CA_FILE",
                _ => "AIRLOCK_SMTP_URL",
            },
            problem: e.to_string(),
        })
    }
}

/// The mailer e-mail notices go through, built as Airlock starts so that a
/// mistake in its settings stops startup rather than every e-mail; startup
/// also stops when a channel of `config` sends e-mail and no SMTP server
/// is set.
pub fn mailer(
    smtp: Option<&SmtpSettings>,
    config: &engine::config::Config,
) -> anyhow::Result<Option<engine::reviews::notices::Mailer>> {
    use engine::config::NotifyChannel;
    let emailing = config
        .notify
        .iter()
        .find(|(_, channel)| matches!(channel, NotifyChannel::Email { .. }));
    match (smtp, emailing) {
        (Some(smtp), _) => Ok(Some(smtp.mailer()?)),
        (None, Some((name, _))) => anyhow::bail!(
            "the channel notify.{name} sends e-mail: set AIRLOCK_SMTP_URL and AIRLOCK_SMTP_FROM to the SMTP server and the sender"
        ),
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use crate::settings::Settings;

    /// The variable a mistake in `pairs` is put down to, when the settings
    /// are read or their mailer is built.
    fn refused(pairs: &[(&str, &str)]) -> &'static str {
        let settings = Settings::from_lookup(|name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        });
        let err = match settings {
            Ok(settings) => settings.smtp.expect("SMTP settings").mailer().unwrap_err(),
            Err(err) => err,
        };
        err.name
    }

    #[test]
    fn a_mistake_in_the_smtp_settings_names_its_variable() {
        let url = ("AIRLOCK_SMTP_URL", "smtps://smtp.example.com");
        let from = ("AIRLOCK_SMTP_FROM", "Airlock <airlock@example.com>");
        assert_eq!(refused(&[url]), "AIRLOCK_SMTP_FROM");
        assert_eq!(
            refused(&[("AIRLOCK_SMTP_FROM", "airlock at example"), url]),
            "AIRLOCK_SMTP_FROM"
        );
        let remote_plain = ("AIRLOCK_SMTP_URL", "smtp://smtp.example.com:25?tls=none");
        assert_eq!(refused(&[remote_plain, from]), "AIRLOCK_SMTP_URL");
        let missing_ca = ("AIRLOCK_SMTP_CA_FILE", "/nonexistent/ca.pem");
        assert_eq!(refused(&[url, from, missing_ca]), "AIRLOCK_SMTP_CA_FILE");
    }
}
