//! Settings: embedded defaults, overridden by `AIRLOCK_*` environment variables.
//! With none set, Airlock serves on 127.0.0.1:3000 with a SQLite file under `./data`.

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
        Ok(Self {
            addr,
            data_dir,
            database_url,
            site_root,
            config_file,
        })
    }
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
    fn a_bad_address_names_its_variable() {
        let e = from(&[("AIRLOCK_ADDR", "localhost")]).unwrap_err();
        assert_eq!(e.name, "AIRLOCK_ADDR");
        assert!(e.to_string().contains("localhost"));
    }
}
