//! A case as its reviewer sees it: the prompt, what led to it, the call's
//! card, and either the response forms or the recorded outcome. The page
//! follows the case's stream, so a decision taken anywhere else closes its
//! forms, and the card goes on to show the call run. While the stream is
//! down the page says so, as the chat does: what it shows may be stale.

use leptos::prelude::*;

use super::earlier_rounds::EarlierRounds;
use super::review_forms::ReviewForms;
use super::ReviewAccess;
use crate::error::AppError;
use crate::server_fns::reviews::RespondReview;
use crate::ui::chat::tool_card::notices::LiveNotices;
use crate::ui::chat::tool_card::ToolCard;
use crate::ui::common::event_stream::follow;
use crate::ui::common::post_form::Post;
use crate::wire::{AnswerDraft, ReviewItem};

/// The event kind of a review page's stream.
const REVIEW_EVENTS: &[&str] = &["review"];

/// Whether the page should show `now` instead of `shown`. While the case
/// stays open nothing is redrawn, so a reviewer's half-typed reason or edit
/// survives; once it closes, its call moves on, or someone else approves
/// it (a call that needs several approvals), the page follows.
fn worth_showing(shown: &ReviewItem, now: &ReviewItem) -> bool {
    now != shown
        && (!now.is_open()
            || now.call.status != shown.call.status
            || now.call.quorum != shown.call.quorum)
}

/// `text` made safe as a URL query value. A real token is base64url and
/// passes unchanged; whatever else was typed into the link is escaped.
fn query_value(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The review of one case; an expired case also answers with status 410.
// An island, except in the browser bundles of pages without it, where it is
// a plain component that nothing uses (see `bundle_for`).
#[cfg_attr(any(not(feature = "hydrate"), feature = "review_view"), island)]
#[cfg_attr(all(feature = "hydrate", not(feature = "review_view")), component)]
pub fn ReviewView(
    item: ReviewItem,
    access: ReviewAccess,
    /// A typed question's answer as posted, drawn again when it did not fit.
    draft: Option<AnswerDraft>,
) -> impl IntoView {
    #[cfg(feature = "ssr")]
    if item.status == "expired" {
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            response.set_status(http::StatusCode::GONE);
        }
    }
    // Earlier rounds are over: drawn once, not followed.
    let earlier = item.earlier.clone();
    let kicker = match earlier.len() {
        0 => "Review requested".to_owned(),
        n => format!("Review requested · round {}", n + 1),
    };
    let current = RwSignal::new(item);
    let notices = LiveNotices::provide();
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
    let url = format!(
        "/api/reviews/{}/events?token={}",
        access.case_id,
        query_value(&access.token)
    );
    let reconnecting = RwSignal::new(false);
    Effect::new(move |started: Option<()>| {
        if started.is_none() {
            let on_event = Callback::new(move |(_, data): (&'static str, String)| {
                if let Ok(now) = serde_json::from_str::<ReviewItem>(&data) {
                    notices.note(&now.call);
                    if worth_showing(&current.read_untracked(), &now) {
                        current.set(now);
                    }
                }
            });
            follow(url.clone(), REVIEW_EVENTS, on_event, reconnecting);
        }
    });
    view! {
        <section class="review" aria-labelledby="review-title">
            <p class="review-kicker">
                {kicker}
                <Show when=move || reconnecting.get()>
                    <span class="live-badge" role="status">"Reconnecting…"</span>
                </Show>
            </p>
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
                let draft = draft.clone();
                let forms = open.then(|| {
                    let item = item.clone();
                    ViewFn::from(move || view! {
                        <ReviewForms item=item.clone() access=access.clone() respond to on_reviewed on_conflict draft=draft.clone()/>
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
            <EarlierRounds rounds=earlier/>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_goes_into_the_query_as_it_is_and_anything_else_escaped() {
        assert_eq!(query_value("aZ09-_.~"), "aZ09-_.~");
        assert_eq!(query_value("a&b=c #é"), "a%26b%3Dc%20%23%C3%A9");
    }

    fn item(status: &str, call_status: &str) -> ReviewItem {
        serde_json::from_value(serde_json::json!({
            "case_id": "review_x", "case_type": "approval", "status": status,
            "prompt": "Approve delete_file from demo?", "expires_at": null,
            "completed_at": null, "expired_at": null, "default_action": "reject",
            "result_action": null, "responded_by": null, "user_message": null,
            "assistant_text": null,
            "call": {
                "id": "call_x", "conversation_id": "conv_x", "batch_id": "b", "message_seq": 1,
                "source": "demo", "tool": "delete_file", "arguments": {"path": "a"},
                "original_arguments": null, "status": call_status, "policy_reason": "r",
                "expires_at": null, "decision": null, "result": null, "error": null,
                "created_at": "2026-11-23T10:00:00Z"
            }
        }))
        .unwrap()
    }

    #[test]
    fn an_open_page_is_redrawn_only_when_its_case_closes_or_its_call_moves_on() {
        let opened = item("opened", "pending_approval");
        // Someone started typing (in progress): the forms stay as they are.
        assert!(!worth_showing(
            &opened,
            &item("in_progress", "pending_approval")
        ));
        assert!(!worth_showing(&opened, &opened.clone()));
        // Decided elsewhere: the forms give way to the outcome.
        let decided = item("completed", "approved");
        assert!(worth_showing(&opened, &decided));
        // Then the call runs.
        assert!(worth_showing(&decided, &item("completed", "executing")));
    }
}
