//! Other web pages cannot read or decide through a person's browser.
//!
//! On loopback Airlock has no sign-in, so any page a person visits may try
//! two things through their browser: read answers by making its own name
//! resolve to this machine (DNS rebinding), and post a form or a fetch that
//! changes something (cross-site request forgery). The first always names
//! the page's host in `Host`; the second carries the page's `Origin`, or at
//! least its `Referer`. This layer refuses both before any handler runs.

mod authority;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{header, Method, StatusCode};

pub use authority::Authority;

/// The hosts the server answers to, besides addresses and `localhost`.
#[derive(Debug, Clone, Default)]
pub struct AllowedHosts {
    /// `*` was configured: every host (the operator's choice).
    any: bool,
    /// The public URL's host and `AIRLOCK_ALLOWED_HOSTS`; an entry without
    /// a port allows the host on every port.
    names: Vec<Authority>,
    /// The public URL's origin, for proxies that do not pass `Host` on.
    public_origin: Option<Authority>,
}

impl AllowedHosts {
    /// The public URL's host and the extra hosts configured
    /// (`AIRLOCK_ALLOWED_HOSTS`, already checked: `*` or a host).
    pub fn new(public_url: Option<&str>, extra: &[String]) -> Self {
        let public_origin = public_url.and_then(Authority::of_url);
        let any = extra.iter().any(|entry| entry == "*");
        let mut names: Vec<Authority> = extra.iter().filter_map(|e| Authority::parse(e)).collect();
        if let Some(origin) = &public_origin {
            names.push(Authority {
                host: origin.host.clone(),
                port: None,
            });
        }
        Self {
            any,
            names,
            public_origin,
        }
    }

    /// Whether a request to `host` may be served. An IP address or
    /// `localhost` cannot be named by another site's page (its origin would
    /// then be the address itself), so only other names need allowing; the
    /// port is not checked, so SSH tunnels and port forwards keep working.
    pub fn allows(&self, host: &Authority) -> bool {
        self.any
            || host.is_ip()
            || host.host == "localhost"
            || self.names.iter().any(|allowed| {
                allowed.host == host.host && allowed.port.is_none_or(|p| Some(p) == host.port)
            })
    }

    /// Whether `origin` is this server's own, as reached at `host`.
    fn is_own_origin(&self, origin: &Authority, host: Option<&Authority>) -> bool {
        host.is_some_and(|host| host.is_origin_of(origin))
            || self.public_origin.as_ref() == Some(origin)
    }
}

/// Middleware: refuses a request to a host the server does not answer to
/// (421), and a change sent from another site's page (403). Requests with
/// neither `Origin` nor `Referer` (agents, curl) pass to their handler.
pub async fn refuse_foreign(
    State(allowed): State<std::sync::Arc<AllowedHosts>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()));
    let host = match host.map(|text| (text, Authority::parse(text))) {
        None => None,
        Some((_, Some(host))) if allowed.allows(&host) => Some(host),
        Some((text, _)) => return misdirected(text),
    };
    if !is_safe(request.method()) {
        if let Some(source) = source_of(&request) {
            let own = Authority::of_url(source)
                .is_some_and(|origin| allowed.is_own_origin(&origin, host.as_ref()));
            if !own {
                return cross_site(source);
            }
        }
    }
    next.run(request).await
}

/// Reads are safe: they change nothing, and the host check keeps other
/// sites from reading their answers.
pub(crate) fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The page a request was sent from: its `Origin`, else its `Referer`.
pub(crate) fn source_of(request: &Request) -> Option<&str> {
    let headers = request.headers();
    headers
        .get(header::ORIGIN)
        .or_else(|| headers.get(header::REFERER))
        .map(|v| v.to_str().unwrap_or("(not text)"))
}

fn misdirected(host: &str) -> Response {
    let host = printable(host);
    refused(
        StatusCode::MISDIRECTED_REQUEST,
        "unknown_host",
        format!(
            "Airlock does not answer to the host `{host}`. If you reached it through that \
             name on purpose, add it to AIRLOCK_ALLOWED_HOSTS or set AIRLOCK_PUBLIC_URL."
        ),
    )
}

fn cross_site(source: &str) -> Response {
    let source = printable(source);
    refused(
        StatusCode::FORBIDDEN,
        "cross_site_request",
        format!(
            "Airlock takes changes only from its own pages, and this one says it came from \
             `{source}` (its Origin or Referer). Nothing was changed."
        ),
    )
}

/// A header's text as a message may quote it: no control characters, and
/// not longer than a line.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(200).collect()
}

/// The error shape of every Airlock answer: a stable code and a message.
fn refused(status: StatusCode, code: &str, message: String) -> Response {
    let body = serde_json::json!({ "code": code, "message": message });
    (status, axum::Json(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::{AllowedHosts, Authority};

    fn host(text: &str) -> Authority {
        Authority::parse(text).unwrap()
    }

    #[test]
    fn addresses_and_localhost_are_always_served_and_other_names_only_when_allowed() {
        let none = AllowedHosts::new(None, &[]);
        for ok in [
            "127.0.0.1:3000",
            "[::1]:3000",
            "localhost:3000",
            "localhost:8080",
            "10.0.0.7",
        ] {
            assert!(none.allows(&host(ok)), "{ok}");
        }
        for refused in [
            "rebind.evil.example:3000",
            "localhost.evil.example",
            "airlock.internal",
        ] {
            assert!(!none.allows(&host(refused)), "{refused}");
        }
        let some = AllowedHosts::new(
            Some("https://airlock.example.com"),
            &["airlock.internal".into(), "box:8080".into()],
        );
        for ok in ["airlock.example.com", "airlock.internal:3000", "box:8080"] {
            assert!(some.allows(&host(ok)), "{ok}");
        }
        assert!(!some.allows(&host("box:3000")));
        assert!(AllowedHosts::new(None, &["*".into()]).allows(&host("anything.example")));
    }

    #[test]
    fn the_own_origin_is_the_host_reached_or_the_public_url() {
        let allowed = AllowedHosts::new(Some("https://airlock.example.com"), &[]);
        let origin = |url| Authority::of_url(url).unwrap();
        let local = host("127.0.0.1:3000");
        assert!(allowed.is_own_origin(&origin("http://127.0.0.1:3000"), Some(&local)));
        assert!(!allowed.is_own_origin(&origin("https://evil.example"), Some(&local)));
        assert!(allowed.is_own_origin(&origin("https://airlock.example.com/x"), Some(&local)));
        assert!(!allowed.is_own_origin(&origin("http://127.0.0.1:3000"), None));
    }
}
