//! Which address a request comes from, for holding back failed sign-ins per
//! client. Behind a reverse proxy every request arrives from the proxy, so
//! one person's mistakes would hold back everyone; with the proxy's address
//! in `AIRLOCK_TRUSTED_PROXIES`, the client is the nearest address in
//! `X-Forwarded-For` that is not a trusted proxy. A header from anyone else
//! is ignored: a client cannot choose its own address.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use app::state::ClientAddress;

/// Addresses and networks whose `X-Forwarded-For` is believed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<Network>);

/// An address and how many of its leading bits a network shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Network {
    address: IpAddr,
    prefix: u32,
}

impl Network {
    fn contains(&self, ip: IpAddr) -> bool {
        let bits = |ip: IpAddr| match ip {
            IpAddr::V4(v4) => (u128::from(u32::from(v4)), 32),
            IpAddr::V6(v6) => (u128::from(v6), 128),
        };
        let ((net, width), (ip, ip_width)) = (bits(self.address), bits(ip.to_canonical()));
        if width != ip_width {
            return false;
        }
        let shift = width - self.prefix;
        shift >= width || (net >> shift) == (ip >> shift)
    }
}

impl TrustedProxies {
    /// Reads a list of addresses and networks (`10.0.0.0/8`, `::1`),
    /// separated by commas or spaces; an entry that is neither is named.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut networks = Vec::new();
        for entry in text.split([',', ' ']).filter(|e| !e.is_empty()) {
            let (address, prefix) = entry.split_once('/').unwrap_or((entry, ""));
            let address: IpAddr = address
                .parse()
                .map_err(|_| format!("`{entry}` is not an address or a network"))?;
            let width = if address.is_ipv4() { 32 } else { 128 };
            let prefix =
                match prefix {
                    "" => width,
                    bits => bits.parse().ok().filter(|b| *b <= width).ok_or_else(|| {
                        format!("`{entry}` has no prefix length from 0 to {width}")
                    })?,
                };
            networks.push(Network { address, prefix });
        }
        Ok(Self(networks))
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|n| n.contains(ip))
    }

    /// The client of a request from `peer` that says `forwarded_for`.
    pub fn client(&self, peer: IpAddr, forwarded_for: Option<&str>) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        let hops: Vec<IpAddr> = forwarded_for
            .unwrap_or_default()
            .split(',')
            .filter_map(|hop| hop.trim().parse().ok())
            .collect();
        // Nearest first: each proxy appends the address it heard from.
        let untrusted = hops.iter().rev().find(|hop| !self.trusts(**hop));
        untrusted.or(hops.first()).copied().unwrap_or(peer)
    }
}

/// Middleware: notes the request's client address for the handlers.
pub async fn note(
    State(proxies): State<Arc<TrustedProxies>>,
    mut request: Request,
    next: Next,
) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    if let Some(peer) = peer {
        let forwarded = request
            .headers()
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join(",");
        let client = proxies.client(peer, Some(forwarded.as_str()).filter(|f| !f.is_empty()));
        request
            .extensions_mut()
            .insert(ClientAddress(client.to_string()));
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn only_a_trusted_proxy_names_the_client() {
        let proxies = TrustedProxies::parse("10.0.0.0/8, ::1 192.168.1.7").unwrap();
        // A client that talks to Airlock directly cannot choose its address.
        assert_eq!(
            proxies.client(ip("203.0.113.9"), Some("198.51.100.1")),
            ip("203.0.113.9")
        );
        // Behind the proxy: the nearest untrusted hop, past proxies in a chain.
        let chain = Some("198.51.100.1, 203.0.113.9, 10.1.2.3");
        assert_eq!(proxies.client(ip("10.9.9.9"), chain), ip("203.0.113.9"));
        assert_eq!(
            proxies.client(ip("::1"), Some("203.0.113.5")),
            ip("203.0.113.5")
        );
        assert_eq!(proxies.client(ip("192.168.1.7"), None), ip("192.168.1.7"));
        assert_eq!(
            proxies.client(ip("192.168.1.8"), Some("203.0.113.5")),
            ip("192.168.1.8")
        );
        // IPv4 seen as IPv6 is the same address.
        assert_eq!(
            proxies.client(ip("::ffff:10.0.0.1"), Some("203.0.113.5")),
            ip("203.0.113.5")
        );
        assert_eq!(
            TrustedProxies::default().client(ip("10.0.0.1"), Some("203.0.113.5")),
            ip("10.0.0.1")
        );
    }

    #[test]
    fn entries_that_are_not_networks_are_named() {
        assert!(TrustedProxies::parse("10.0.0.0/33")
            .unwrap_err()
            .contains("10.0.0.0/33"));
        assert!(TrustedProxies::parse("proxy.internal")
            .unwrap_err()
            .contains("proxy.internal"));
        assert_eq!(
            TrustedProxies::parse("").unwrap(),
            TrustedProxies::default()
        );
        assert!(TrustedProxies::parse("0.0.0.0/0")
            .unwrap()
            .trusts(ip("8.8.8.8")));
    }
}
