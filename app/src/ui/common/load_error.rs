//! What a page shows when its data could not be loaded.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::error::AppError;

/// Explains a failed load; a missing thing also answers with status 404.
#[component]
pub fn LoadError(error: AppError) -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(error.status_code());
    }
    let (title, text) = match &error {
        AppError::NotFound { what } => (
            format!("{} not found", capitalise(what)),
            format!(
                "This {what} does not exist. It may have been deleted, or the link may be wrong."
            ),
        ),
        AppError::Forbidden => (
            "This review link is not valid".to_owned(),
            "The link may be incomplete or altered. Ask whoever sent it for a new one.".to_owned(),
        ),
        other => ("Something went wrong".to_owned(), other.to_string()),
    };
    view! {
        <Title text=title.clone()/>
        <section class="empty-state" role="alert">
            <h1>{title}</h1>
            <p>{text}</p>
            <p><a class="button" href="/">"Back to conversations"</a></p>
        </section>
    }
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
