//! Forms that post to a server function. As plain HTML each is an ordinary
//! form (`method="post"` to the function's address), so it works before the
//! page comes alive and without JavaScript; once alive, it posts with
//! `fetch` and keeps the answer in a [`Post`], without a reload.
//!
//! Leptos' `ActionForm` does the same, but reads each form back into its
//! function's typed arguments and builds a client per function. Here every
//! form shares one path from its fields to the answer's JSON, which keeps
//! the browser's bundle small; the server function reads the fields as it
//! reads a plain form post.

use leptos::prelude::*;
use leptos::server::ServerActionError;
use leptos::server_fn::error::ServerFnUrlError;
use leptos::server_fn::ServerFn;
use serde::de::DeserializeOwned;

use crate::error::AppError;

/// The posts of one or more forms whose server functions answer a `T`:
/// whether one is under way, and the last answer.
pub struct Post<T: Send + Sync + 'static> {
    pending: RwSignal<bool>,
    value: RwSignal<Option<Result<T, AppError>>>,
    answered: Callback<Result<String, AppError>>,
}

impl<T: Send + Sync + 'static> Clone for Post<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Send + Sync + 'static> Copy for Post<T> {}

impl<T: DeserializeOwned + Send + Sync + 'static> Post<T> {
    /// Nothing posted yet.
    pub fn new() -> Self {
        let value = RwSignal::new(None);
        let answered = Callback::new(move |answer: Result<String, AppError>| {
            value.set(Some(answer.and_then(|json| {
                serde_json::from_str(&json).map_err(|e| AppError::Transport {
                    message: format!("unreadable answer: {e}"),
                })
            })));
        });
        Self {
            pending: RwSignal::new(false),
            value,
            answered,
        }
    }

    /// Where a form posts to reach `S`. A plain post to `S` that failed
    /// comes back as this page with the error in its address; the post
    /// then starts with that error, as the server showed it.
    pub fn to<S>(self) -> PostTarget
    where
        S: ServerFn<Output = T, Error = AppError>,
    {
        if let Some(error) = failed_post::<S>() {
            self.value.set(Some(Err(error)));
        }
        PostTarget {
            path: S::PATH,
            pending: self.pending,
            answered: self.answered,
        }
    }

    /// True while a post is under way.
    pub fn pending(&self) -> ReadSignal<bool> {
        self.pending.read_only()
    }

    /// The last answer, if any.
    pub fn value(&self) -> ReadSignal<Option<Result<T, AppError>>> {
        self.value.read_only()
    }
}

impl<T: DeserializeOwned + Send + Sync + 'static> Default for Post<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The error of a plain post to `S` that failed: the server sends the
/// browser back to the page with the error in its address.
pub fn failed_post<S>() -> Option<AppError>
where
    S: ServerFn<Error = AppError>,
{
    use_context::<ServerActionError>()
        .filter(|e| e.path() == S::PATH)
        .map(|e| ServerFnUrlError::<AppError>::decode_err(e.err()))
}

/// A server function's address and the [`Post`] that takes its answers.
#[derive(Clone, Copy)]
pub struct PostTarget {
    pub(crate) path: &'static str,
    // Read when the browser submits; the server only renders the form.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    pub(crate) pending: RwSignal<bool>,
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    pub(crate) answered: Callback<Result<String, AppError>>,
}

/// A form that posts its fields (and the button that sent it) to `to`.
#[component]
pub fn PostForm(
    to: PostTarget,
    children: Children,
    #[prop(optional)] class: Option<&'static str>,
) -> impl IntoView {
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        #[cfg(feature = "hydrate")]
        submit(&ev, to);
        // Only a browser submits forms; the server renders them.
        #[cfg(not(feature = "hydrate"))]
        let _ = ev;
    };
    view! {
        <form method="post" action=to.path class=class on:submit=on_submit>
            {children()}
        </form>
    }
}

/// Sends a submitted form with `fetch` instead of navigating.
#[cfg(feature = "hydrate")]
fn submit(ev: &leptos::ev::SubmitEvent, to: PostTarget) {
    ev.prevent_default();
    if to.pending.get_untracked() {
        return;
    }
    let body = match crate::browser::post::form_body(ev) {
        Ok(body) => body,
        Err(e) => {
            to.answered.try_run(Err(e));
            return;
        }
    };
    to.pending.set(true);
    leptos::task::spawn_local(async move {
        let answer = crate::browser::post::send("POST", to.path, Some(body)).await;
        // The form may be gone by now: its card re-rendered when the live
        // stream told of the decision first. Its answer then has no reader.
        to.pending.try_set(false);
        to.answered.try_run(answer);
    });
}
