use std::time::Duration;

use super::*;

#[test]
fn both_bodies_say_what_waits_and_link_its_review_escaped() {
    let mut call = super::super::waiting_call();
    call.arguments = serde_json::json!({ "path": "/srv/<b>plan</b>.txt" });
    let link = "https://airlock.example.com/review/r1?token=a&b";
    let text = text(&call, link, Words::of("waiting"));
    assert!(
        text.starts_with("write_file from files waits for approval."),
        "{text}"
    );
    assert!(text.contains("  path: /srv/<b>plan</b>.txt\n"), "{text}");
    assert!(text.contains(&format!("Review it: {link}\n")), "{text}");
    let html = html(&call, link, Words::of("waiting"));
    assert!(html.contains("/srv/&lt;b&gt;plan&lt;/b&gt;.txt"), "{html}");
    assert!(
        html.contains("href=\"https://airlock.example.com/review/r1?token=a&amp;b\""),
        "{html}"
    );
}

#[test]
fn settings_are_checked_before_anything_is_sent() {
    let settings = |url| SmtpSettings {
        url,
        username: None,
        password: None,
        from: "Airlock <airlock@example.com>",
        ca_file: None,
    };
    assert!(Mailer::new(settings("smtps://smtp.example.com")).is_ok());
    assert!(Mailer::new(settings("smtp://smtp.example.com:2587")).is_ok());
    assert!(Mailer::new(settings("smtp://127.0.0.1:2525?tls=none")).is_ok());
    assert!(matches!(
        Mailer::new(settings("smtp://smtp.example.com?tls=none")),
        Err(MailerError::Plain(_))
    ));
    assert!(matches!(
        Mailer::new(settings("smtp.example.com")),
        Err(MailerError::Url(_))
    ));
    assert!(matches!(
        Mailer::new(settings("http://smtp.example.com")),
        Err(MailerError::Url(_))
    ));
    let bad_from = SmtpSettings {
        from: "airlock",
        ..settings("smtps://smtp.example.com")
    };
    assert!(matches!(Mailer::new(bad_from), Err(MailerError::From(_))));
}

/// A real SMTP server on loopback (smtp-server, from npm): STARTTLS with a
/// certificate from a private certificate authority, and a login.
pub(crate) struct Receiver {
    port: String,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    _child: tokio::process::Child,
}

impl Receiver {
    async fn start(certificates: &std::path::Path, user: &str, password: &str) -> Self {
        let key = certificates.join("server.key");
        let cert = certificates.join("server.pem");
        Self::run(&[
            key.as_os_str(),
            cert.as_os_str(),
            user.as_ref(),
            password.as_ref(),
        ])
        .await
    }

    /// One without TLS or a login, as a relay on this machine is.
    pub(crate) async fn plain() -> Self {
        Self::run(&["-".as_ref(), "-".as_ref()]).await
    }

    /// Its address for `AIRLOCK_SMTP_URL`, when it is [`plain`](Self::plain).
    pub(crate) fn plain_url(&self) -> String {
        format!("smtp://127.0.0.1:{}?tls=none", self.port)
    }

    async fn run(args: &[&std::ffi::OsStr]) -> Self {
        use tokio::io::AsyncBufReadExt;
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../end2end/support/smtp-receiver.mjs");
        let mut child = tokio::process::Command::new("node")
            .arg(script)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs the SMTP server (make test installs end2end's packages)");
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines
            .next_line()
            .await
            .unwrap()
            .expect("it says where it listens");
        let port = first.strip_prefix("listening on ").unwrap().to_owned();
        Self {
            port,
            lines,
            _child: child,
        }
    }

    /// The next message it received.
    pub(crate) async fn next(&mut self) -> serde_json::Value {
        let line = tokio::time::timeout(Duration::from_secs(20), self.lines.next_line())
            .await
            .expect("a message arrives")
            .unwrap()
            .unwrap();
        serde_json::from_str(&line).unwrap()
    }
}

#[tokio::test]
async fn a_notice_goes_over_starttls_with_a_login_to_every_address() {
    let certificates = crate::private_ca::certificates();
    let mut receiver = Receiver::start(certificates.path(), "airlock", "mail-secret").await;
    let url = format!("smtp://127.0.0.1:{}", receiver.port);
    let ca = certificates.path().join("ca.pem");
    let settings = SmtpSettings {
        url: &url,
        username: Some("airlock"),
        password: Some("mail-secret"),
        from: "Airlock <airlock@example.com>",
        ca_file: Some(&ca),
    };
    let mailer = Mailer::new(settings).unwrap();
    let call = super::super::waiting_call();
    let to = [
        "oncall@example.com".to_owned(),
        "Rita <rita@example.com>".to_owned(),
    ];
    let link = "http://127.0.0.1:3000/review/r1?token=t";
    mailer
        .send(&to, &call, link, Words::of("waiting"))
        .await
        .unwrap();
    let mail = receiver.next().await;
    assert_eq!(mail["secure"], true, "STARTTLS before anything is sent");
    assert_eq!(mail["user"], "airlock");
    assert_eq!(mail["from"], "airlock@example.com");
    assert_eq!(
        mail["to"],
        serde_json::json!(["oncall@example.com", "rita@example.com"])
    );
    assert_eq!(mail["subject"], "Approval needed: write_file from files");
    assert!(mail["text"].as_str().unwrap().contains(link), "{mail}");
    assert!(mail["html"].as_str().unwrap().contains(link), "{mail}");

    // A wrong password, or a server the system does not trust, sends nothing.
    let wrong = Mailer::new(SmtpSettings {
        password: Some("guess"),
        ..settings
    })
    .unwrap();
    let refused = wrong
        .send(&to, &call, link, Words::of("waiting"))
        .await
        .unwrap_err();
    assert!(
        refused.starts_with("the SMTP server refused it"),
        "{refused}"
    );
    let untrusted = Mailer::new(SmtpSettings {
        ca_file: None,
        ..settings
    })
    .unwrap();
    assert!(untrusted
        .send(&to, &call, link, Words::of("waiting"))
        .await
        .is_err());
}
