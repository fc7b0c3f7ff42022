//! Posting to server functions with `fetch`: the fields URL-encoded, as a
//! plain form post sends them, and the answer's JSON (or the error the
//! server function returned) back.

use leptos::prelude::*;
use leptos::wasm_bindgen::{JsCast, JsValue};
use serde::de::DeserializeOwned;
use wasm_bindgen_futures::JsFuture;

use crate::error::AppError;

/// Calls the server function at `path` with `fields`, as its form would.
pub async fn call<T: DeserializeOwned>(path: &str, fields: &[(&str, &str)]) -> Result<T, AppError> {
    let params = web_sys::UrlSearchParams::new().map_err(failed)?;
    for (name, value) in fields {
        params.append(name, value);
    }
    read(&send("POST", path, Some(params.to_string().into())).await?)
}

/// Calls the server function at `path` that reads (`GetUrl`, no arguments).
pub async fn get<T: DeserializeOwned>(path: &str) -> Result<T, AppError> {
    read(&send("GET", path, None).await?)
}

fn read<T: DeserializeOwned>(json: &str) -> Result<T, AppError> {
    serde_json::from_str(json).map_err(|e| AppError::Transport {
        message: format!("unreadable answer: {e}"),
    })
}

/// The form's fields, and the name and value of the button that sent it.
pub fn form_body(ev: &leptos::ev::SubmitEvent) -> Result<String, AppError> {
    let data = leptos::form::form_data_from_event(ev).map_err(|_| AppError::Transport {
        message: "the form could not be read".into(),
    })?;
    let params = web_sys::UrlSearchParams::new_with_str_sequence_sequence(&data).map_err(failed)?;
    Ok(params.to_string().into())
}

/// Sends a request with a URL-encoded `body` and returns the answer's text.
/// A status of 400 or more carries the server function's error as JSON.
pub async fn send(method: &str, path: &str, body: Option<String>) -> Result<String, AppError> {
    let headers = web_sys::Headers::new().map_err(failed)?;
    // JSON rather than a redirect back to the page, which a plain post gets.
    headers.set("accept", "application/json").map_err(failed)?;
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    if let Some(body) = body {
        headers
            .set("content-type", "application/x-www-form-urlencoded")
            .map_err(failed)?;
        init.set_body(&JsValue::from_str(&body));
    }
    init.set_headers(&headers);
    let response: web_sys::Response = JsFuture::from(window().fetch_with_str_and_init(path, &init))
        .await
        .map_err(failed)?
        .unchecked_into();
    let text = JsFuture::from(response.text().map_err(failed)?)
        .await
        .map_err(failed)?
        .as_string()
        .unwrap_or_default();
    if response.status() < 400 {
        return Ok(text);
    }
    Err(
        serde_json::from_str(&text).unwrap_or_else(|_| AppError::Transport {
            message: format!("the server answered {}", response.status()),
        }),
    )
}

/// A failure of the browser's own APIs (offline, a refused request).
fn failed(error: JsValue) -> AppError {
    let message = error
        .dyn_ref::<web_sys::js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_else(|| "the request failed".into());
    AppError::Transport { message }
}
