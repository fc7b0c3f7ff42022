//! `/review/:case_id?token=…`: a case opened through its link, with no
//! account and no chat. A wrong token answers 403, an expired case 410; a
//! link whose policy wants a signed-in approver (`review_link: sign_in`)
//! asks to sign in and comes back. The server opens the case before it
//! renders (see `server/src/review_page.rs`), so the page is drawn in one
//! pass.

use leptos::either::EitherOf3;
use leptos::prelude::*;
use leptos_meta::Title;

use crate::error::AppError;
use crate::ui::common::load_error::LoadError;
use crate::ui::common::query::query_value;
use crate::ui::review::review_view::ReviewView;
use crate::ui::review::ReviewAccess;
use crate::wire::{AnswerDraft, ReviewItem};

/// The case the link opened, or why it did not open.
#[component]
pub fn ReviewPage(
    opened: Result<ReviewItem, AppError>,
    access: ReviewAccess,
    /// A typed question's answer as posted, when it did not fit, or the
    /// step of its form reached; or what was kept of a form in steps.
    draft: Option<AnswerDraft>,
) -> impl IntoView {
    match opened {
        Ok(item) => EitherOf3::A(
            view! { <Title text=item.prompt.clone()/> <ReviewView item access draft/> },
        ),
        Err(AppError::Unauthenticated) => EitherOf3::B(view! { <SignInToReview access/> }),
        Err(error) => EitherOf3::C(view! { <LoadError error/> }),
    }
}

/// A link whose call's policy wants a signed-in approver: sign in, and come
/// back to the same link.
#[component]
fn SignInToReview(access: ReviewAccess) -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::UNAUTHORIZED);
    }
    let back = format!("/review/{}?token={}", access.case_id, access.token);
    let sign_in = format!("/sign-in?next={}", query_value(&back));
    view! {
        <Title text="Sign in to review"/>
        <section class="empty-state" role="alert">
            <h1>"Sign in to review"</h1>
            <p>"This review is for the approvers of its call: sign in, and you come back here."</p>
            <p><a class="button primary" href=sign_in>"Sign in"</a></p>
        </section>
    }
}
