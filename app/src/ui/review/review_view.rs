//! A case as its reviewer sees it: the prompt, what led to it, the call's
//! card, and either the response forms or the recorded outcome.

use leptos::prelude::*;

use super::review_forms::ReviewForms;
use super::ReviewAccess;
use crate::error::AppError;
use crate::server_fns::reviews::RespondReview;
use crate::ui::chat::tool_card::ToolCard;
use crate::ui::common::post_form::Post;
use crate::wire::ReviewItem;

/// The review of one case; an expired case also answers with status 410.
#[island]
pub fn ReviewView(item: ReviewItem, access: ReviewAccess) -> impl IntoView {
    #[cfg(feature = "ssr")]
    if item.status == "expired" {
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            response.set_status(http::StatusCode::GONE);
        }
    }
    let current = RwSignal::new(item);
    let on_reviewed = Callback::new(move |item: ReviewItem| current.set(item));
    // The page's one response, shared with the forms. A response posted as
    // a plain form (no JavaScript, or before the page came alive) that lost
    // the race comes back as this page again, with the error in its URL;
    // `to` reads it from there, once.
    let respond = Post::<ReviewItem>::new();
    let to = respond.to::<RespondReview>();
    let lost = match respond.value().get_untracked() {
        Some(Err(AppError::AlreadyDecided { by, .. })) => Some(format!("Already decided by {by}")),
        _ => None,
    };
    let conflict = RwSignal::new(lost);
    let on_conflict = Callback::new(move |text: String| conflict.set(Some(text)));
    let on_decided = Callback::new(move |_| {});
    view! {
        <section class="review" aria-labelledby="review-title">
            <p class="review-kicker">"Review requested"</p>
            <h1 id="review-title">{move || current.read().prompt.clone()}</h1>
            {move || {
                let item = current.get();
                (item.user_message.is_some() || item.assistant_text.is_some()).then(|| view! {
                    <section class="review-context" aria-label="What led to this">
                        {item.user_message.map(|m| view! {
                            <p class="context-label">"The person asked"</p>
                            <blockquote class="context-quote">{m}</blockquote>
                        })}
                        {item.assistant_text.map(|t| view! {
                            <p class="context-label">"The agent said"</p>
                            <blockquote class="context-quote">{t}</blockquote>
                        })}
                    </section>
                })
            }}
            {move || {
                let item = current.get();
                let outcome = item.outcome_text();
                let open = item.is_open();
                let access = access.clone();
                let forms = open.then(|| {
                    let item = item.clone();
                    ViewFn::from(move || view! {
                        <ReviewForms item=item.clone() access=access.clone() respond to on_reviewed on_conflict/>
                    })
                });
                let card = match forms {
                    Some(actions) => view! { <ToolCard call=item.call actions on_decided/> }.into_any(),
                    None => view! { <ToolCard call=item.call on_decided/> }.into_any(),
                };
                view! {
                    {move || conflict.get().map(|c| view! { <p class="form-error" role="alert">{c}</p> })}
                    {outcome.map(|o| view! { <p class="review-outcome" role="status">{o}</p> })}
                    {card}
                }
            }}
        </section>
    }
}
