//! The state every request handler and server function can read.

use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;

/// The running server's shared state, one pointer to clone: each request
/// clones it several times on its way through the layers and the router,
/// and cloning each field was a tenth of the server's time on a small
/// request (`make bench`, floor). Its fields read as the state's own.
#[derive(Debug, Clone)]
pub struct AppState(std::sync::Arc<Shared>);

impl AppState {
    pub fn new(shared: Shared) -> Self {
        AppState(std::sync::Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// Where leptos_axum's handlers find the site's options.
impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}

/// What [`AppState`] holds.
#[derive(Debug)]
pub struct Shared {
    /// Where the compiled site lives and how it is named.
    pub leptos_options: LeptosOptions,
    /// Airlock's core.
    pub engine: engine::Engine,
    /// The base of links handed out (`AIRLOCK_PUBLIC_URL`); without one,
    /// links are built from the request's own host.
    pub public_url: Option<String>,
    /// Whether the model's server answers, as last asked.
    pub model_reach: ModelReach,
    /// Whether the built-in demo model answers, whose commands the chat
    /// suggests ("list files"); a real model is asked in any words.
    pub demo_model: bool,
}

/// Why the model's server cannot be reached, as last asked; `None` while
/// it answers (or nobody asked: the demo model needs no server).
#[derive(Debug, Clone, Default)]
pub struct ModelReach(std::sync::Arc<std::sync::RwLock<Option<String>>>);

impl ModelReach {
    /// The problem, if the server did not answer when last asked.
    pub fn problem(&self) -> Option<String> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Records what the last question found.
    pub fn set(&self, problem: Option<String>) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = problem;
    }
}

/// What people are told of those of `sources` that are not up now:
/// "files is down: could not connect to …: connection refused. Its calls
/// cannot run until it is back."
pub fn sources_down<'a>(sources: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let wanted: std::collections::BTreeSet<&str> = sources.into_iter().collect();
    engine()
        .sources()
        .into_iter()
        .filter(|s| wanted.contains(s.name.as_str()))
        .filter_map(|s| {
            let status = s.status.filter(|status| !status.is_up())?;
            Some(format!(
                "{}. Its calls cannot run until it is back.",
                status.unavailable(&s.name)
            ))
        })
        .collect()
}

/// Whether the demo model answers.
pub fn demo_model() -> bool {
    leptos::prelude::expect_context::<AppState>().demo_model
}

/// Why the model cannot be reached now, for the chat's banner.
pub fn model_problem() -> Option<String> {
    leptos::prelude::expect_context::<AppState>()
        .model_reach
        .problem()
}

impl AppState {
    /// Whether the public URL is https, so cookies are marked `Secure`.
    pub fn served_over_https(&self) -> bool {
        self.public_url
            .as_deref()
            .is_some_and(|url| url.starts_with("https://"))
    }
}

/// The engine of the running server. Server functions call this first.
pub fn engine() -> engine::Engine {
    leptos::prelude::expect_context::<AppState>().engine.clone()
}

/// The base of the absolute links handed out: the public URL, else
/// `http://` and the host the request came to, when it is a plain host
/// (letters, digits and `.-:[]` only, so a link cannot be bent elsewhere).
pub fn link_base(public_url: Option<&str>, host: Option<&str>) -> Option<String> {
    if let Some(url) = public_url {
        return Some(url.to_owned());
    }
    let plain = |h: &&str| {
        !h.is_empty()
            && h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
    };
    host.filter(plain).map(|host| format!("http://{host}"))
}

/// The person a request is signed in as, which the sign-in check puts in
/// the request's extensions when the `auth:` block turns sign-in on.
#[derive(Debug, Clone)]
pub struct SignedInPerson {
    pub person: engine::domain::Person,
    /// The session the request came with; `None` for a request a personal
    /// API token signed in.
    pub session: Option<engine::domain::SessionId>,
}

/// Who the current request is signed in as, and with which session.
pub fn signed_in_session() -> Option<SignedInPerson> {
    let parts = leptos::prelude::use_context::<http::request::Parts>()?;
    parts.extensions.get::<SignedInPerson>().cloned()
}

/// The person the current request is signed in as, if any.
pub fn signed_in() -> Option<engine::domain::Person> {
    signed_in_session().map(|signed_in| signed_in.person)
}

/// The address a request comes from as the server worked it out (behind a
/// trusted proxy, from `X-Forwarded-For`), in the request's extensions.
#[derive(Debug, Clone)]
pub struct ClientAddress(pub String);

/// The address the current request came from, for holding back failed
/// sign-ins per client; `unknown` when the server was not told.
pub fn client_address() -> String {
    leptos::prelude::use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<ClientAddress>().map(|c| c.0.clone()))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Whether the current request is a plain form post (the browser asks for
/// a page back), rather than the page's own `fetch` (it asks for JSON).
pub fn plain_form_post() -> bool {
    leptos::prelude::use_context::<http::request::Parts>().is_some_and(|p| accepts_html(&p))
}

/// Whether a request with `parts` asks for a page back.
pub fn accepts_html(parts: &http::request::Parts) -> bool {
    parts
        .headers
        .get(http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"))
}

/// Whether the public URL is https, so cookies are marked `Secure`.
pub fn served_over_https() -> bool {
    leptos::prelude::use_context::<AppState>().is_some_and(|state| state.served_over_https())
}

/// The value of cookie `name` in `headers`, if it is there.
pub fn cookie<'h>(headers: &'h http::HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// The person signed in as the engine checks and records them, with their
/// approver groups; `None` when nobody signs in.
pub fn actor() -> Option<engine::domain::Actor> {
    Some(engine().config().actor_of(signed_in()?))
}

/// The person looking, for the cards: without an `auth:` block, the one
/// local person, who decides everything.
pub fn deciding() -> crate::wire::Deciding {
    match actor() {
        Some(actor) => crate::wire::Deciding {
            may_decide: actor.access.may(engine::domain::Action::Decide),
            person_id: Some(actor.id.to_string()),
            groups: actor.groups,
            name: None,
        },
        None if engine().config().auth.is_none() => crate::wire::Deciding {
            name: Some(engine().config().local_person.clone()),
            ..crate::wire::Deciding::anyone()
        },
        None => crate::wire::Deciding::default(),
    }
}

/// Refuses `action` to the person signed in when their access does not
/// allow it; with no `auth:` block, the one local person may do anything.
pub fn allowed(action: engine::domain::Action) -> Result<(), crate::error::AppError> {
    if engine().config().auth.is_none() {
        return Ok(());
    }
    match signed_in() {
        Some(person) if person.access.may(action) => Ok(()),
        Some(_) => Err(crate::error::AppError::NotAllowed),
        None => Err(crate::error::AppError::Unauthenticated),
    }
}

/// The site passkeys are made for and used at: the public URL's origin,
/// else the origin the request came to (a plain host, see [`link_base`]).
/// Browsers refuse an IP address as a passkey's site: on one's own machine,
/// open Airlock as `localhost`.
pub fn relying_party() -> Result<engine::webauthn::RelyingParty, crate::error::AppError> {
    let public_url = leptos::prelude::use_context::<AppState>().and_then(|s| s.public_url.clone());
    let parts = leptos::prelude::use_context::<http::request::Parts>();
    let host = parts
        .as_ref()
        .and_then(|p| p.headers.get(http::header::HOST))
        .and_then(|h| h.to_str().ok());
    let unknown = || crate::error::AppError::Invalid {
        field: "host".into(),
        message: "this request names no site a passkey could be for".into(),
    };
    let base = link_base(public_url.as_deref(), host).ok_or_else(unknown)?;
    let (scheme, rest) = base.split_once("://").ok_or_else(unknown)?;
    let authority = rest.split('/').next().unwrap_or_default();
    let id = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    Ok(engine::webauthn::RelyingParty {
        id: id.to_owned(),
        origin: format!("{scheme}://{authority}"),
    })
}
