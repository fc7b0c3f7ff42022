//! Settings: embedded defaults, overridden by `AIRLOCK_*` environment variables.
//! With none set, Airlock serves on 127.0.0.1:3000 with a SQLite file under `./data`.

use crate::client_address::TrustedProxies;
pub use model::{ModelSettings, OpenAiSettings};
pub use slack::{slack_app, SlackSettings};
pub use smtp::{mailer, SmtpSettings};

mod model;
mod slack;
mod smtp;
use std::net::SocketAddr;
use std::path::PathBuf;

/// A setting whose value cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("setting {name}: {problem}")]
pub struct SettingsError {
    /// The environment variable at fault.
    pub name: &'static str,
    /// What is wrong with it.
    pub problem: String,
}

/// Everything the server needs to start.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Where to listen (`AIRLOCK_ADDR`, else `LEPTOS_SITE_ADDR`, else 127.0.0.1:3000).
    pub addr: SocketAddr,
    /// Where Airlock keeps its files (`AIRLOCK_DATA_DIR`, default `./data`).
    pub data_dir: PathBuf,
    /// The database (`AIRLOCK_DATABASE_URL`, default a SQLite file in the data directory).
    pub database_url: String,
    /// The compiled site: JS, WASM, CSS and public files (`LEPTOS_SITE_ROOT`, default `target/site`).
    pub site_root: String,
    /// The policy configuration file (`AIRLOCK_CONFIG`); without one, the embedded defaults.
    pub config_file: Option<PathBuf>,
    /// The model; without `AIRLOCK_MODEL_BASE_URL`, the built-in demo model.
    pub model: ModelSettings,
    /// The base of the links handed to agents and reviewers
    /// (`AIRLOCK_PUBLIC_URL`, e.g. `https://airlock.example.com`); without
    /// it, links use the host each request came to.
    pub public_url: Option<String>,
    /// The secret callbacks are signed with (`AIRLOCK_CALLBACK_SECRET`);
    /// without it, one generated into the data directory.
    pub callback_secret: Option<Secret>,
    /// The secret receipts' keys derive from (`AIRLOCK_RECEIPT_SECRET`, the
    /// same on every replica); without it, one generated into the data
    /// directory.
    pub receipt_secret: Option<Secret>,
    /// Host names the server answers to besides addresses, `localhost` and
    /// the public URL's host (`AIRLOCK_ALLOWED_HOSTS`, comma-separated:
    /// `name` on any port, `name:port`, or `*` for every host).
    pub allowed_hosts: Vec<String>,
    /// The client secret at the OpenID provider (`AIRLOCK_OIDC_CLIENT_SECRET`).
    pub oidc_client_secret: Option<Secret>,
    /// Reverse proxies whose `X-Forwarded-For` names the client
    /// (`AIRLOCK_TRUSTED_PROXIES`: addresses and networks, comma-separated).
    pub trusted_proxies: TrustedProxies,
    /// Who decides when nobody signs in: the OS user (`USER`, or
    /// `USERNAME` on Windows), else `local user`.
    pub local_person: String,
    /// The SMTP server e-mail notices go through (`AIRLOCK_SMTP_URL`).
    pub smtp: Option<SmtpSettings>,
    /// The Slack app whose buttons decide (`AIRLOCK_SLACK_SIGNING_SECRET`).
    pub slack: Option<SlackSettings>,
    /// What a scraper sends to read `/metrics` with sign-in on
    /// (`AIRLOCK_METRICS_TOKEN`, as `Authorization: Bearer`).
    pub metrics_token: Option<Secret>,
}

/// A value that never reaches a log line.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(secret)")
    }
}

impl Settings {
    /// Reads settings from the process environment.
    pub fn from_env() -> Result<Self, SettingsError> {
        Self::from_lookup(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
    }

    /// Reads settings through `lookup`, so tests need not touch the environment.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, SettingsError> {
        let (addr_name, addr) = match (lookup("AIRLOCK_ADDR"), lookup("LEPTOS_SITE_ADDR")) {
            (Some(a), _) => ("AIRLOCK_ADDR", a),
            (None, Some(a)) => ("LEPTOS_SITE_ADDR", a),
            (None, None) => ("AIRLOCK_ADDR", "127.0.0.1:3000".to_owned()),
        };
        let addr = addr.parse().map_err(|_| SettingsError {
            name: addr_name,
            problem: format!("`{addr}` is not an address like 127.0.0.1:3000"),
        })?;
        let data_dir =
            PathBuf::from(lookup("AIRLOCK_DATA_DIR").unwrap_or_else(|| "data".to_owned()));
        let database_url = lookup("AIRLOCK_DATABASE_URL")
            .unwrap_or_else(|| data_dir.join("airlock.db").to_string_lossy().into_owned());
        let site_root = lookup("LEPTOS_SITE_ROOT").unwrap_or_else(|| "target/site".to_owned());
        let config_file = lookup("AIRLOCK_CONFIG").map(PathBuf::from);
        let model = ModelSettings::from_lookup(&lookup)?;
        let public_url = match lookup("AIRLOCK_PUBLIC_URL") {
            None => None,
            Some(url) if url.starts_with("https://") || url.starts_with("http://") => {
                Some(url.trim_end_matches('/').to_owned())
            }
            Some(url) => {
                return Err(SettingsError {
                    name: "AIRLOCK_PUBLIC_URL",
                    problem: format!("`{url}` is not an address like https://airlock.example.com"),
                })
            }
        };
        let callback_secret = lookup("AIRLOCK_CALLBACK_SECRET").map(Secret);
        let receipt_secret = lookup("AIRLOCK_RECEIPT_SECRET").map(Secret);
        let allowed_hosts = allowed_hosts(lookup("AIRLOCK_ALLOWED_HOSTS").as_deref())?;
        let oidc_client_secret = lookup("AIRLOCK_OIDC_CLIENT_SECRET").map(Secret);
        let local_person = lookup("USER")
            .or_else(|| lookup("USERNAME"))
            .map(|name| name.trim().to_owned())
            .filter(|name| !name.is_empty() && name.chars().count() <= 64 && !name.contains('\0'))
            .unwrap_or_else(|| engine::config::LOCAL_PERSON.to_owned());
        let proxies = lookup("AIRLOCK_TRUSTED_PROXIES").unwrap_or_default();
        let trusted_proxies = TrustedProxies::parse(&proxies).map_err(|problem| SettingsError {
            name: "AIRLOCK_TRUSTED_PROXIES",
            problem,
        })?;
        let smtp = SmtpSettings::from_lookup(&lookup)?;
        let slack = SlackSettings::from_lookup(&lookup)?;
        Ok(Self {
            addr,
            data_dir,
            database_url,
            site_root,
            config_file,
            model,
            public_url,
            callback_secret,
            receipt_secret,
            allowed_hosts,
            oidc_client_secret,
            trusted_proxies,
            local_person,
            smtp,
            slack,
            metrics_token: lookup("AIRLOCK_METRICS_TOKEN").map(Secret),
        })
    }
}

/// Reads `AIRLOCK_ALLOWED_HOSTS`: hosts separated by commas or spaces.
fn allowed_hosts(text: Option<&str>) -> Result<Vec<String>, SettingsError> {
    let entries = text.unwrap_or_default().split([',', ' ']);
    entries
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            if entry == "*" || crate::cross_site::Authority::parse(entry).is_some() {
                Ok(entry.to_owned())
            } else {
                Err(SettingsError {
                    name: "AIRLOCK_ALLOWED_HOSTS",
                    problem: format!(
                        "`{entry}` is not a host like airlock.internal or airlock.internal:8080"
                    ),
                })
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(pairs: &[(&str, &str)]) -> Result<Settings, SettingsError> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_lookup(move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn defaults_need_nothing() {
        let s = from(&[]).unwrap();
        assert_eq!(s.addr.to_string(), "127.0.0.1:3000");
        assert_eq!(
            s.database_url,
            PathBuf::from("data").join("airlock.db").to_string_lossy()
        );
    }

    #[test]
    fn the_database_follows_the_data_directory() {
        let s = from(&[("AIRLOCK_DATA_DIR", "/srv/airlock")]).unwrap();
        assert_eq!(s.database_url, "/srv/airlock/airlock.db");
        let s = from(&[("AIRLOCK_DATABASE_URL", "postgres://db/airlock")]).unwrap();
        assert_eq!(s.database_url, "postgres://db/airlock");
    }

    #[test]
    fn the_local_person_is_named_after_the_os_user() {
        assert_eq!(from(&[]).unwrap().local_person, "local user");
        assert_eq!(from(&[("USER", "ana")]).unwrap().local_person, "ana");
        assert_eq!(from(&[("USERNAME", "Bo")]).unwrap().local_person, "Bo");
        assert_eq!(from(&[("USER", "  ")]).unwrap().local_person, "local user");
    }

    #[test]
    fn trusted_proxies_are_addresses_and_networks() {
        assert_eq!(
            from(&[]).unwrap().trusted_proxies,
            TrustedProxies::default()
        );
        let e = from(&[("AIRLOCK_TRUSTED_PROXIES", "10.0.0.0/8, proxy")]).unwrap_err();
        assert_eq!(e.name, "AIRLOCK_TRUSTED_PROXIES");
        assert!(e.problem.contains("`proxy`"), "{}", e.problem);
    }

    #[test]
    fn allowed_hosts_are_a_list_of_hosts() {
        assert!(from(&[]).unwrap().allowed_hosts.is_empty());
        let s = from(&[("AIRLOCK_ALLOWED_HOSTS", "airlock.internal, box:8080,[::2]")]).unwrap();
        assert_eq!(s.allowed_hosts, ["airlock.internal", "box:8080", "[::2]"]);
        let e = from(&[("AIRLOCK_ALLOWED_HOSTS", "https://airlock.internal")]).unwrap_err();
        assert_eq!(e.name, "AIRLOCK_ALLOWED_HOSTS");
        assert!(e.to_string().contains("https://airlock.internal"), "{e}");
    }

    #[test]
    fn a_bad_address_names_its_variable() {
        let e = from(&[("AIRLOCK_ADDR", "localhost")]).unwrap_err();
        assert_eq!(e.name, "AIRLOCK_ADDR");
        assert!(e.to_string().contains("localhost"));
    }
}
