//! `/review/:case_id?token=…`: a case opened through its link, with no
//! account and no chat. A wrong token answers 403, an expired case 410; a
//! link whose policy wants a signed-in approver (`review_link: sign_in`)
//! asks to sign in and comes back.

use leptos::either::EitherOf3;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::error::AppError;
use crate::server_fns::reviews::open_review;
use crate::ui::common::load_error::LoadError;
use crate::ui::common::query::query_value;
use crate::ui::review::review_view::ReviewView;
use crate::ui::review::ReviewAccess;

/// Loads the case named in the URL and shows it.
#[component]
pub fn ReviewPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let access = move || ReviewAccess {
        case_id: params.read().get("case_id").unwrap_or_default(),
        token: query.read().get("token").unwrap_or_default(),
    };
    let review = Resource::new(access, |a| open_review(a.case_id, a.token));
    view! {
        <Suspense fallback=|| view! { <p class="loading">"Loading the review…"</p> }>
            {move || Suspend::new(async move {
                match review.await {
                    Ok(item) => EitherOf3::A(view! { <Title text=item.prompt.clone()/> <ReviewView item access=access()/> }),
                    Err(AppError::Unauthenticated) => EitherOf3::B(view! { <SignInToReview access=access()/> }),
                    Err(error) => EitherOf3::C(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
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
