//! Signing in and out.

mod add_person;
mod api_tokens;
mod disable_person;
mod list_people;
mod list_sessions;
mod passkeys;
mod set_email;
mod set_up;
mod sign_in;
mod sign_in_options;
mod sign_out;
mod sign_out_everywhere;

pub use add_person::*;
pub use api_tokens::*;
pub use disable_person::*;
pub use list_people::*;
pub use list_sessions::*;
pub use passkeys::*;
pub use set_email::*;
pub use set_up::*;
pub use sign_in::*;
pub use sign_in_options::*;
pub use sign_out::*;
pub use sign_out_everywhere::*;

/// The cookie a session's token travels in.
pub const SESSION_COOKIE: &str = "airlock_session";

/// Where the people page lives; its forms send the browser back there.
pub const PEOPLE_PAGE: &str = "/people";

/// Where a person's account page lives; its forms send the browser back.
pub const ACCOUNT_PAGE: &str = "/account";

/// Where the sign-in page lives.
pub const SIGN_IN_PAGE: &str = "/sign-in";

/// The cookie header that ends this browser's session cookie.
pub const CLEARED_COOKIE: &str = "airlock_session=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0";

/// Puts `value` (a whole `Set-Cookie` value) on the answer being built.
#[cfg(feature = "ssr")]
fn set_cookie(value: &str) {
    use leptos::prelude::use_context;
    if let (Some(response), Ok(value)) = (
        use_context::<leptos_axum::ResponseOptions>(),
        http::HeaderValue::from_str(value),
    ) {
        response.append_header(http::header::SET_COOKIE, value);
    }
}

/// The `Set-Cookie` value of a session just started, `Secure` when served
/// over https.
#[cfg(feature = "ssr")]
pub fn session_cookie(token: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    let max_age = engine::people::ABSOLUTE_LIFETIME.num_seconds();
    format!("{SESSION_COOKIE}={token}; HttpOnly; SameSite=Lax; Path=/; Max-Age={max_age}{secure}")
}

/// Gives the browser the cookie of a session just started.
#[cfg(feature = "ssr")]
fn set_session_cookie(started: &engine::people::Started) {
    let secure = crate::state::served_over_https();
    set_cookie(&session_cookie(started.token.as_str(), secure));
}

/// `next` when it is a path on this site, else the home page: a sign-in
/// never sends the browser to another site. A path is printable ASCII
/// without spaces or backslashes, as a browser sends it (it escapes the
/// rest): anything else could not go in a `Location` header at all.
pub fn local_path(next: &str) -> &str {
    let printable = next.bytes().all(|b| b.is_ascii_graphic() && b != b'\\');
    let local = printable && next.starts_with('/') && !next.starts_with("//");
    if local {
        next
    } else {
        "/"
    }
}

#[cfg(test)]
mod tests {
    use super::local_path;

    #[test]
    fn only_paths_on_this_site_are_followed() {
        assert_eq!(local_path("/c/conv_1?x=1"), "/c/conv_1?x=1");
        for elsewhere in [
            "https://evil.example/",
            "//evil.example/",
            "/\\\\evil.example",
            "/\u{b}x",
            "/\tx",
            "/a b",
            "/caf\u{e9}",
            "/x\u{7f}",
            "",
            "c/1",
        ] {
            assert_eq!(local_path(elsewhere), "/", "{elsewhere}");
        }
    }
}
