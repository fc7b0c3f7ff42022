//! A notice as an e-mail over SMTP: a plain-text and an HTML body, each
//! with the link to the call's review page. The link only opens the page;
//! deciding there takes a POST, so a mail scanner that follows every link
//! decides nothing.

use std::time::Duration;

use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use super::{Listed, Words};
use crate::domain::ToolCall;

/// How long one delivery to the SMTP server may take.
const SMTP_TIMEOUT: Duration = Duration::from_secs(10);

/// The SMTP server notices are sent through, and who they come from.
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mailer(from {})", self.from)
    }
}

/// Why the SMTP settings cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum MailerError {
    #[error(
        "`{0}` is not an SMTP server like smtps://smtp.example.com or smtp://smtp.example.com:587"
    )]
    Url(String),
    #[error("`{0}` is not a sender like `Airlock <airlock@example.com>`")]
    From(String),
    #[error("mail without TLS (`tls=none`) goes only to a server on this machine, not `{0}`")]
    Plain(String),
    #[error("TLS to {host}: {problem}")]
    Tls { host: String, problem: String },
    #[error("the certificate authority file {0}")]
    CaFile(String),
}

/// How to reach the SMTP server, as the settings give it.
#[derive(Debug, Clone, Copy)]
pub struct SmtpSettings<'a> {
    /// `smtps://host[:port]` (TLS from the start, port 465 by default),
    /// `smtp://host[:port]` (STARTTLS, required; port 587), or
    /// `smtp://host:port?tls=none` for a server on this machine.
    pub url: &'a str,
    pub username: Option<&'a str>,
    pub password: Option<&'a str>,
    /// The sender: `Airlock <airlock@example.com>`.
    pub from: &'a str,
    /// A PEM file of the certificate authority the server's certificate
    /// comes from, when it is a private one.
    pub ca_file: Option<&'a std::path::Path>,
}

impl Mailer {
    /// A mailer for `settings`; it connects when it first sends.
    pub fn new(settings: SmtpSettings<'_>) -> Result<Self, MailerError> {
        let bad_url = || MailerError::Url(settings.url.to_owned());
        let url = reqwest::Url::parse(settings.url).map_err(|_| bad_url())?;
        let host = url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(bad_url)?;
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let plain = match url.query() {
            None => false,
            Some("tls=none") => true,
            Some(_) => return Err(bad_url()),
        };
        let tls = || tls_parameters(&host, settings.ca_file);
        let (tls, port) = match (url.scheme(), plain) {
            ("smtps", false) => (Tls::Wrapper(tls()?), 465),
            ("smtp", false) => (Tls::Required(tls()?), 587),
            ("smtp", true) if is_loopback(&host) => (Tls::None, 25),
            ("smtp", true) => return Err(MailerError::Plain(host)),
            _ => return Err(bad_url()),
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host.as_str())
            .port(url.port().unwrap_or(port))
            .tls(tls)
            .timeout(Some(SMTP_TIMEOUT));
        if let Some(username) = settings.username {
            let password = settings.password.unwrap_or_default();
            builder = builder.credentials(Credentials::new(username.into(), password.into()));
        }
        let from = settings
            .from
            .parse::<Mailbox>()
            .map_err(|_| MailerError::From(settings.from.to_owned()))?;
        Ok(Self {
            transport: builder.build(),
            from,
        })
    }

    /// Sends the notice of `call` to `to`; why it was not sent, if it was not.
    pub(super) async fn send(
        &self,
        to: &[String],
        call: &ToolCall,
        link: &str,
        words: Words,
    ) -> Result<(), String> {
        let subject = format!(
            "{}Approval needed: {} from {}",
            words.opening, call.tool, call.source
        );
        // RFC 5322 §3.6.4: a message carries an id of its own, under the
        // sender's domain; spam filters count against one without.
        let id = format!("<{}@{}>", uuid::Uuid::new_v4(), self.from.email.domain());
        let mut message = Message::builder()
            .from(self.from.clone())
            .message_id(Some(id))
            .subject(subject);
        for address in to {
            let mailbox = address
                .parse::<Mailbox>()
                .map_err(|e| format!("`{address}` is not an e-mail address: {e}"))?;
            message = message.to(mailbox);
        }
        let bodies =
            MultiPart::alternative_plain_html(text(call, link, words), html(call, link, words));
        let message = message
            .multipart(bodies)
            .map_err(|e| format!("could not write the e-mail: {e}"))?;
        self.transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(|e| format!("the SMTP server refused it: {e}"))
    }
}

/// TLS to `host`, trusting the system's certificate authorities and
/// `ca_file`'s.
fn tls_parameters(
    host: &str,
    ca_file: Option<&std::path::Path>,
) -> Result<TlsParameters, MailerError> {
    let refused = |problem: String| MailerError::Tls {
        host: host.to_owned(),
        problem,
    };
    let mut builder = TlsParameters::builder(host.to_owned());
    if let Some(path) = ca_file {
        let shown = path.display();
        let pem = std::fs::read(path)
            .map_err(|e| MailerError::CaFile(format!("{shown} cannot be read: {e}")))?;
        let ca = Certificate::from_pem(&pem)
            .map_err(|e| MailerError::CaFile(format!("{shown} holds no certificate: {e}")))?;
        builder = builder.add_root_certificate(ca);
    }
    builder.build().map_err(|e| refused(e.to_string()))
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The plain-text body.
fn text(call: &ToolCall, link: &str, words: Words) -> String {
    let Words { opening, waits } = words;
    let mut out = format!(
        "{opening}{} from {} {waits}.\n\nWhy: {}\n",
        call.tool, call.source, call.policy_reason
    );
    if let Some(at) = call.expires_at {
        out.push_str(&format!("Expires: {}\n", at.format("%Y-%m-%d %H:%M UTC")));
    }
    let listed = Listed::of(&call.arguments);
    if !listed.shown.is_empty() {
        out.push_str("\nArguments:\n");
        for a in &listed.shown {
            out.push_str(&format!("  {}: {}\n", a.name, a.value));
        }
        if listed.more > 0 {
            out.push_str(&format!("  and {} more\n", listed.more));
        }
    }
    if let Some(preview) = &call.preview {
        out.push_str(&format!("\nPreview:\n{}\n", preview.as_text()));
    }
    out.push_str(&format!(
        "\nReview it: {link}\n\nThe link opens the call's review page; nothing is decided until you choose there.\n"
    ));
    out
}

/// The HTML body: the same, with the link as a button.
fn html(call: &ToolCall, link: &str, words: Words) -> String {
    let e = escape;
    let mut facts = format!("<p><strong>Why:</strong> {}</p>", e(&call.policy_reason));
    if let Some(at) = call.expires_at {
        let at = at.format("%Y-%m-%d %H:%M UTC").to_string();
        facts.push_str(&format!("<p><strong>Expires:</strong> {at}</p>"));
    }
    let listed = Listed::of(&call.arguments);
    let mut rows: String = listed
        .shown
        .iter()
        .map(|a| {
            format!(
                "<tr><th align=\"left\"><code>{}</code></th><td>{}</td></tr>",
                e(&a.name),
                e(&a.value)
            )
        })
        .collect();
    if listed.more > 0 {
        rows.push_str(&format!(
            "<tr><td colspan=\"2\">and {} more</td></tr>",
            listed.more
        ));
    }
    format!(
        "<!doctype html><html><body style=\"font-family: sans-serif\">\
         <p>{opening}<strong>{tool}</strong> from <strong>{source}</strong> {waits}.</p>\
         {facts}<table>{rows}</table>\
         <p><a href=\"{link}\" style=\"display: inline-block; padding: 8px 16px; background: #2f55d4; color: #fff; text-decoration: none; border-radius: 6px\">Review</a></p>\
         <p style=\"color: #5b6576\">The link opens the call's review page; nothing is decided until you choose there.</p>\
         </body></html>",
        opening = words.opening,
        waits = words.waits,
        tool = e(&call.tool),
        source = e(&call.source),
        link = e(link),
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
pub(super) mod tests;
