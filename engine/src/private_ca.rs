//! Test support: HTTPS in front of a real local server, with a certificate
//! from a certificate authority of its own that nothing trusts by default,
//! as a server behind a company's private CA has.

use std::path::PathBuf;
use std::process::Stdio;

use tokio::process::{Child, Command};

/// Terminates TLS with a key and certificate (PEM files) on a free port and
/// passes each request on to an upstream root, streams included: a
/// stand-in for the proxy in front of a remote server.
const TLS_PROXY: &str = r#"
const [key, cert, upstream] = process.argv.slice(1);
const fs = require('fs'), http = require('http'), https = require('https');
const target = new URL(upstream);
https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
  const headers = { ...req.headers, host: target.host };
  const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (r) => {
    res.writeHead(r.statusCode, r.headers);
    r.pipe(res);
  });
  up.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
  req.pipe(up);
}).listen(0, '127.0.0.1', function () { console.log('listening on ' + this.address().port); });
"#;

/// An HTTPS proxy to an upstream server, stopped when dropped.
pub struct Https {
    /// Its root, `https://127.0.0.1:<port>`.
    pub root: String,
    dir: tempfile::TempDir,
    _proxy: Child,
}

impl Https {
    /// The PEM file of the certificate authority that signed its certificate.
    pub fn ca_pem(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// Serves `upstream` (an `http://host:port` root) over HTTPS.
    pub async fn proxy(upstream: &str) -> Self {
        let dir = certificates();
        let mut proxy = Command::new("node")
            .arg("-e")
            .arg(TLS_PROXY)
            .arg(dir.path().join("server.key"))
            .arg(dir.path().join("server.pem"))
            .arg(upstream)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("node runs the TLS proxy");
        let port = crate::node_process::listening(
            proxy.stdout.take().unwrap(),
            "listening on ",
            "the TLS proxy",
        )
        .await;
        Self {
            root: format!("https://127.0.0.1:{port}"),
            dir,
            _proxy: proxy,
        }
    }
}

/// A directory with a certificate authority (`ca.pem`) and a key
/// (`server.key`) and certificate (`server.pem`) it issued for 127.0.0.1.
pub fn certificates() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "Airlock test CA");
    let ca = ca.self_signed(&ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let server = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .unwrap()
        .signed_by(&key, &ca, &ca_key)
        .unwrap();
    std::fs::write(dir.path().join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(dir.path().join("server.pem"), server.pem()).unwrap();
    std::fs::write(dir.path().join("server.key"), key.serialize_pem()).unwrap();
    dir
}
