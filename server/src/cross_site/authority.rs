//! The host and port a `Host` header or an origin names, compared the way
//! browsers compare origins: names without case or a trailing dot, and a
//! missing port as the scheme's default.

use std::net::IpAddr;

/// A host and, when written, its port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authority {
    /// Lowercase, without a trailing dot; an IPv6 address keeps its brackets.
    pub host: String,
    /// The port, when one was written.
    pub port: Option<u16>,
}

impl Authority {
    /// Reads `host`, `host:port`, `[v6]` or `[v6]:port`; `None` for anything
    /// else (a user name, a path, an empty host, a port that is not a number).
    pub fn parse(text: &str) -> Option<Self> {
        let (host, port) = match text.rfind(':') {
            // A colon inside brackets belongs to an IPv6 address.
            Some(colon) if !text[colon..].contains(']') => {
                let port = text[colon + 1..].parse().ok()?;
                (&text[..colon], Some(port))
            }
            _ => (text, None),
        };
        let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
        let valid = if let Some(inner) = host.strip_prefix('[') {
            inner
                .strip_suffix(']')
                .is_some_and(|ip| ip.parse::<std::net::Ipv6Addr>().is_ok())
        } else {
            !host.is_empty()
                && host
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_')
        };
        valid.then_some(Self { host, port })
    }

    /// The authority of an origin or URL (`https://example.com:8443/path`),
    /// with its port made explicit; `None` for `null` and anything that is
    /// not an http(s) URL.
    pub fn of_url(url: &str) -> Option<Self> {
        let (default_port, rest) = if let Some(rest) = url.strip_prefix("http://") {
            (80, rest)
        } else if let Some(rest) = url.strip_prefix("https://") {
            (443, rest)
        } else {
            return None;
        };
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let mut authority = Self::parse(&rest[..end])?;
        authority.port.get_or_insert(default_port);
        Some(authority)
    }

    /// Whether the host is an IP address rather than a name.
    pub fn is_ip(&self) -> bool {
        let bare = self.host.trim_start_matches('[').trim_end_matches(']');
        bare.parse::<IpAddr>().is_ok()
    }

    /// Whether an origin (with its port explicit) is the one a browser gave
    /// a page it loaded from this `Host`. A `Host` without a port came
    /// through the scheme's default port, which the origin's port then is.
    pub fn is_origin_of(&self, origin: &Authority) -> bool {
        self.host == origin.host
            && match self.port {
                Some(port) => origin.port == Some(port),
                None => matches!(origin.port, Some(80) | Some(443)),
            }
    }
}

#[cfg(test)]
mod tests {
    use super::Authority;

    fn at(host: &str, port: Option<u16>) -> Option<Authority> {
        Some(Authority {
            host: host.into(),
            port,
        })
    }

    #[test]
    fn hosts_are_read_as_browsers_compare_them() {
        assert_eq!(
            Authority::parse("LocalHost:3000"),
            at("localhost", Some(3000))
        );
        assert_eq!(Authority::parse("example.com."), at("example.com", None));
        assert_eq!(Authority::parse("[::1]:3000"), at("[::1]", Some(3000)));
        assert_eq!(Authority::parse("[::1]"), at("[::1]", None));
        assert_eq!(Authority::parse("127.0.0.1"), at("127.0.0.1", None));
        for bad in [
            "",
            ":3000",
            "a:b",
            "user@host",
            "host/path",
            "[nope]",
            "a b",
            "[::1",
        ] {
            assert_eq!(Authority::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn origins_and_referers_have_their_port_made_explicit() {
        assert_eq!(
            Authority::of_url("https://Evil.example"),
            at("evil.example", Some(443))
        );
        assert_eq!(
            Authority::of_url("http://127.0.0.1:3000/c/x?y#z"),
            at("127.0.0.1", Some(3000))
        );
        assert_eq!(Authority::of_url("null"), None);
        assert_eq!(Authority::of_url("file:///etc/passwd"), None);
    }

    #[test]
    fn an_origin_matches_the_host_it_was_loaded_from() {
        let host = Authority::parse("localhost:3000").unwrap();
        assert!(host.is_origin_of(&Authority::of_url("http://localhost:3000").unwrap()));
        assert!(!host.is_origin_of(&Authority::of_url("http://localhost:5173").unwrap()));
        assert!(!host.is_origin_of(&Authority::of_url("http://evil.example:3000").unwrap()));
        let proxied = Authority::parse("airlock.example.com").unwrap();
        assert!(proxied.is_origin_of(&Authority::of_url("https://airlock.example.com").unwrap()));
        assert!(
            !proxied.is_origin_of(&Authority::of_url("https://airlock.example.com:8443").unwrap())
        );
    }

    #[test]
    fn addresses_are_told_from_names() {
        assert!(Authority::parse("10.1.2.3:80").unwrap().is_ip());
        assert!(Authority::parse("[::1]:3000").unwrap().is_ip());
        assert!(!Authority::parse("localhost").unwrap().is_ip());
        assert!(!Authority::parse("1.2.3.4.nip.io").unwrap().is_ip());
    }
}
