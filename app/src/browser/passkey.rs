//! Asking the browser for a passkey: the server's options (WebAuthn's JSON
//! form) read with `PublicKeyCredential.parse…FromJSON`, handed to
//! `navigator.credentials`, and the credential written back as JSON with
//! its `toJSON()`. Reached through `Reflect`: the bundles carry no bindings
//! for the Web Authentication API.

use leptos::prelude::*;
use leptos::wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::js_sys::{Function, Object, Promise, Reflect, JSON};

use crate::error::AppError;

/// An assertion for approving call `call_id`: the challenge handed out
/// for it (holding the call's digest), signed by one of the person's
/// passkeys. The challenge's id and the credential as JSON text.
pub async fn approving(call_id: &str) -> Result<(String, String), AppError> {
    use leptos::server_fn::ServerFn;

    use crate::server_fns::approvals::StepUpChallenge;
    use crate::wire::PasskeyAskItem;

    let path = StepUpChallenge::PATH;
    let asked: PasskeyAskItem = crate::browser::post::call(path, &[("call_id", call_id)]).await?;
    let credential = get(&asked.options).await?;
    Ok((asked.challenge_id, credential))
}

/// A new passkey made with the creation `options` (JSON text): its
/// credential as JSON text.
pub async fn create(options: &str) -> Result<String, AppError> {
    ask("create", "parseCreationOptionsFromJSON", options).await
}

/// An assertion made with the request `options` (JSON text): the
/// credential as JSON text.
pub async fn get(options: &str) -> Result<String, AppError> {
    ask("get", "parseRequestOptionsFromJSON", options).await
}

fn missing(_: JsValue) -> AppError {
    AppError::PasskeyRefused {
        reason: "passkey_unavailable".into(),
        message: "this browser cannot use passkeys: use a recent Chrome, Edge, Firefox or Safari"
            .into(),
    }
}

fn function(on: &JsValue, name: &str) -> Result<Function, AppError> {
    Reflect::get(on, &JsValue::from_str(name))
        .and_then(|f| f.dyn_into::<Function>().map_err(JsValue::from))
        .map_err(missing)
}

async fn ask(method: &str, parse: &str, options: &str) -> Result<String, AppError> {
    let credential_type = Reflect::get(&web_sys::js_sys::global(), &"PublicKeyCredential".into())
        .ok()
        .filter(|t| !t.is_undefined())
        .ok_or_else(|| missing(JsValue::UNDEFINED))?;
    let json = JSON::parse(options).map_err(missing)?;
    let public_key = function(&credential_type, parse)?
        .call1(&credential_type, &json)
        .map_err(missing)?;
    let request = Object::new();
    Reflect::set(&request, &"publicKey".into(), &public_key).map_err(missing)?;
    let credentials =
        Reflect::get(&window().navigator(), &"credentials".into()).map_err(missing)?;
    let promise: Promise = function(&credentials, method)?
        .call1(&credentials, &request)
        .and_then(|p| p.dyn_into::<Promise>().map_err(JsValue::from))
        .map_err(missing)?;
    let credential = JsFuture::from(promise)
        .await
        .map_err(|_| AppError::PasskeyRefused {
            reason: "passkey_cancelled".into(),
            message: "no passkey was given: it was cancelled, timed out, or could not verify you"
                .into(),
        })?;
    let written = function(&credential, "toJSON")?
        .call0(&credential)
        .map_err(missing)?;
    let text = JSON::stringify(&written).map_err(missing)?;
    Ok(String::from(text))
}
