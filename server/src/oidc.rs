//! Signing in with an OpenID provider: the authorization code flow with
//! PKCE. `/auth/oidc/start` sends the browser to the provider with a fresh
//! state, nonce and PKCE challenge (kept in a signed cookie, `flow.rs`);
//! `/auth/oidc/callback` checks the state against the cookie, trades the
//! code and the PKCE verifier for an ID token, verifies its signature,
//! issuer, audience, expiry and nonce, and starts the person's session.
//! Every failure goes back to the sign-in page with a reason, never a 5xx.

mod flow;

use std::sync::Arc;

use anyhow::Context;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreProviderMetadata};
use openidconnect::{AuthorizationCode, ClientId, ClientSecret, CsrfToken, IssuerUrl, Nonce};
use openidconnect::{OAuth2TokenResponse, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl};
use openidconnect::{Scope, TokenResponse};
use serde::Deserialize;

use app::server_fns::people::{local_path, session_cookie, SIGN_IN_PAGE};
use app::state::{link_base, AppState};
use engine::config::OidcSettings;
use engine::people::provider::ProviderIdentity;
use engine::EngineError;
use flow::{same, Flow, FLOW_COOKIE, FLOW_SECONDS};

/// Where the provider sends the browser back.
pub const CALLBACK_PATH: &str = "/auth/oidc/callback";

/// The provider, as discovered at start, and what talking to it takes.
pub struct Sso {
    issuer: String,
    metadata: CoreProviderMetadata,
    client_id: ClientId,
    secret: Option<ClientSecret>,
    http: openidconnect::reqwest::Client,
    /// Signs the cookie of a sign-in in progress.
    key: Vec<u8>,
}

impl std::fmt::Debug for Sso {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sso").field("issuer", &self.issuer).finish()
    }
}

/// Discovers the provider `auth.oidc` names; `None` without the block. A
/// provider that cannot be reached stops the start, saying which.
pub async fn connect(
    settings: Option<&OidcSettings>,
    secret: Option<String>,
    key: &[u8],
) -> anyhow::Result<Option<Arc<Sso>>> {
    let Some(settings) = settings else {
        return Ok(None);
    };
    // Following redirects would let a provider's answer point requests elsewhere.
    let http = openidconnect::reqwest::ClientBuilder::new()
        .redirect(openidconnect::reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(10))
        .build()
        .context("cannot set up the HTTP client for the OpenID provider")?;
    let issuer = IssuerUrl::new(settings.issuer.clone())
        .with_context(|| format!("auth.oidc.issuer: `{}` is not a URL", settings.issuer))?;
    let metadata = CoreProviderMetadata::discover_async(issuer, &http)
        .await
        .with_context(|| {
            format!(
                "cannot read the OpenID provider's discovery document at {}/.well-known/openid-configuration",
                settings.issuer.trim_end_matches('/')
            )
        })?;
    tracing::info!(issuer = %settings.issuer, "signing in with the OpenID provider");
    Ok(Some(Arc::new(Sso {
        issuer: settings.issuer.clone(),
        metadata,
        client_id: ClientId::new(settings.client_id.clone()),
        secret: secret.map(ClientSecret::new),
        http,
        key: key.to_vec(),
    })))
}

/// The two routes of a sign-in with the provider.
pub fn routes(sso: Arc<Sso>) -> Router<AppState> {
    let at_start = sso.clone();
    Router::new()
        .route(
            "/auth/oidc/start",
            get(
                move |State(state): State<AppState>,
                      Query(q): Query<StartQuery>,
                      headers: HeaderMap| {
                    start(at_start.clone(), state, q, headers)
                },
            ),
        )
        .route(
            CALLBACK_PATH,
            get(
                move |State(state): State<AppState>,
                      Query(q): Query<CallbackQuery>,
                      headers: HeaderMap| {
                    callback(sso.clone(), state, q, headers)
                },
            ),
        )
}

#[derive(Debug, Deserialize)]
struct StartQuery {
    #[serde(default)]
    next: Option<String>,
}

#[derive(Debug, Deserialize)]
struct CallbackQuery {
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// Why a sign-in with the provider did not finish, as the sign-in page
/// reads it (`?sso_failed=…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failed {
    /// The browser came back without the sign-in it started, or too late.
    Flow,
    /// The provider refused, or what it sent did not check out.
    Provider,
    /// The person is disabled here.
    Refused,
    /// Their name here is someone else's.
    NameTaken,
}

impl Failed {
    fn code(self) -> &'static str {
        match self {
            Failed::Flow => "flow",
            Failed::Provider => "provider",
            Failed::Refused => "refused",
            Failed::NameTaken => "name_taken",
        }
    }
}

impl Sso {
    fn client(
        &self,
        redirect: &str,
    ) -> Result<
        CoreClient<
            openidconnect::EndpointSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointNotSet,
            openidconnect::EndpointMaybeSet,
            openidconnect::EndpointMaybeSet,
        >,
        openidconnect::url::ParseError,
    > {
        Ok(CoreClient::from_provider_metadata(
            self.metadata.clone(),
            self.client_id.clone(),
            self.secret.clone(),
        )
        .set_redirect_uri(RedirectUrl::new(redirect.to_owned())?))
    }
}

async fn start(sso: Arc<Sso>, state: AppState, q: StartQuery, headers: HeaderMap) -> Response {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let Some(base) = link_base(state.public_url.as_deref(), host) else {
        return (StatusCode::BAD_REQUEST, "the request named no usable host").into_response();
    };
    let redirect = format!("{base}{CALLBACK_PATH}");
    let Ok(client) = sso.client(&redirect) else {
        return failed(Failed::Provider);
    };
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (url, csrf, nonce) = client
        .authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        )
        .add_scope(Scope::new("profile".into()))
        .add_scope(Scope::new("email".into()))
        .set_pkce_challenge(challenge)
        .url();
    let flow = Flow {
        state: csrf.secret().clone(),
        nonce: nonce.secret().clone(),
        verifier: verifier.secret().clone(),
        redirect,
        next: local_path(q.next.as_deref().unwrap_or("/")).to_owned(),
        until: chrono::Utc::now().timestamp() + FLOW_SECONDS,
    };
    let cookie = format!(
        "{FLOW_COOKIE}={}; HttpOnly; SameSite=Lax; Path=/auth/oidc; Max-Age={FLOW_SECONDS}{}",
        flow.seal(&sso.key),
        secure(&state)
    );
    see_other(url.as_str(), Some(cookie))
}

async fn callback(
    sso: Arc<Sso>,
    state: AppState,
    q: CallbackQuery,
    headers: HeaderMap,
) -> Response {
    let now = chrono::Utc::now().timestamp();
    let flow = app::state::cookie(&headers, FLOW_COOKIE).and_then(|v| Flow::open(v, &sso.key, now));
    let Some(flow) = flow.filter(|f| q.state.as_deref().is_some_and(|s| same(s, &f.state))) else {
        tracing::warn!(
            "a sign-in with the provider came back without the sign-in this browser started"
        );
        return failed(Failed::Flow);
    };
    if let Some(error) = &q.error {
        tracing::warn!(%error, "the OpenID provider refused a sign-in");
        return failed(Failed::Provider);
    }
    let Some(code) = q.code else {
        return failed(Failed::Provider);
    };
    let who = match identify(&sso, &flow, code).await {
        Ok(who) => who,
        Err(problem) => {
            tracing::warn!(%problem, "a sign-in with the OpenID provider did not check out");
            return failed(Failed::Provider);
        }
    };
    match state.engine.sign_in_with_provider(who).await {
        Ok(started) => {
            let cookie = session_cookie(started.token.as_str(), state.served_over_https());
            let mut response = see_other(&flow.next, Some(cookie));
            let cleared =
                format!("{FLOW_COOKIE}=; HttpOnly; SameSite=Lax; Path=/auth/oidc; Max-Age=0");
            if let Ok(value) = HeaderValue::from_str(&cleared) {
                response.headers_mut().append(header::SET_COOKIE, value);
            }
            response
        }
        Err(EngineError::Invalid { .. }) => failed(Failed::NameTaken),
        Err(EngineError::SignInFailed) => failed(Failed::Refused),
        Err(e) => {
            tracing::error!(error = %e, "cannot start a session after a sign-in with the provider");
            failed(Failed::Provider)
        }
    }
}

/// Trades the code for tokens and reads who signed in from the verified ID
/// token, or from the user info endpoint when the token names nobody.
async fn identify(sso: &Sso, flow: &Flow, code: String) -> Result<ProviderIdentity, String> {
    let client = sso.client(&flow.redirect).map_err(|e| e.to_string())?;
    let tokens = client
        .exchange_code(AuthorizationCode::new(code))
        .map_err(|e| e.to_string())?
        .set_pkce_verifier(PkceCodeVerifier::new(flow.verifier.clone()))
        .request_async(&sso.http)
        .await
        .map_err(|e| format!("the code was not accepted: {e}"))?;
    let id_token = tokens.id_token().ok_or("the provider sent no ID token")?;
    let claims = id_token
        .claims(&client.id_token_verifier(), &Nonce::new(flow.nonce.clone()))
        .map_err(|e| format!("the ID token did not verify: {e}"))?;
    let mut who = ProviderIdentity {
        issuer: sso.issuer.clone(),
        subject: claims.subject().to_string(),
        name: claims.preferred_username().map(|n| n.to_string()),
        display_name: claims
            .name()
            .and_then(|n| n.get(None))
            .map(|n| n.to_string()),
        email: verified_email(claims.email(), claims.email_verified()),
    };
    if who.name.is_none() || who.email.is_none() {
        let info: openidconnect::core::CoreUserInfoClaims = client
            .user_info(
                tokens.access_token().clone(),
                Some(claims.subject().clone()),
            )
            .map_err(|e| e.to_string())?
            .request_async(&sso.http)
            .await
            .map_err(|e| format!("the user info did not come: {e}"))?;
        who.name = info.preferred_username().map(|n| n.to_string());
        who.display_name = who
            .display_name
            .or_else(|| info.name().and_then(|n| n.get(None)).map(|n| n.to_string()));
        who.email = who
            .email
            .or_else(|| verified_email(info.email(), info.email_verified()));
    }
    Ok(who)
}

/// The address, only when the provider says it verified it.
fn verified_email(
    email: Option<&openidconnect::EndUserEmail>,
    verified: Option<bool>,
) -> Option<String> {
    email
        .filter(|_| verified == Some(true))
        .map(|e| e.to_string())
}

/// `; Secure` when the public URL is https.
fn secure(state: &AppState) -> &'static str {
    if state.served_over_https() {
        "; Secure"
    } else {
        ""
    }
}

fn failed(why: Failed) -> Response {
    see_other(&format!("{SIGN_IN_PAGE}?sso_failed={}", why.code()), None)
}

fn see_other(to: &str, cookie: Option<String>) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(location) = HeaderValue::from_str(to) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    if let Some(value) = cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}
