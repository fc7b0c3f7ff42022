use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;
use crate::wire::SignInMethods;

/// How people sign in here: with a password, with the OpenID provider (and
/// its button's words), or both.
#[server(prefix = "/api/fn", endpoint = "sign_in_options", input = GetUrl)]
pub async fn sign_in_options() -> Result<SignInMethods, AppError> {
    let engine = crate::state::engine();
    let auth = engine.config().auth.as_ref();
    Ok(SignInMethods {
        passwords: auth.is_some_and(|a| a.passwords),
        provider: auth
            .and_then(|a| a.oidc.as_ref())
            .map(|oidc| oidc.label.clone()),
    })
}
