//! The signed-in person's account: their sessions on every device, and a
//! way to end them all (a lost laptop, a shared computer); their passkeys,
//! to add and remove; their personal API tokens, to make and revoke.

use leptos::either::Either;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;

use crate::server_fns::people::{
    list_api_tokens, list_passkeys, list_sessions, RemovePasskey, RevokeApiToken, SignOutEverywhere,
};
use crate::ui::account::add_passkey::AddPasskey;
use crate::ui::account::new_token::NewTokenForm;
use crate::ui::common::load_error::LoadError;
use crate::wire::{ApiTokenItem, PasskeyItem, SessionItem};

/// Lists the sessions, this browser's marked, with "Sign out everywhere".
#[component]
pub fn AccountPage() -> impl IntoView {
    let sessions = Resource::new(|| (), |_| list_sessions());
    view! {
        <Title text="Your account"/>
        <div class="page-head">
            <h1>"Your account"</h1>
        </div>
        <h2 class="section-title">"Sessions"</h2>
        <p class="page-intro">"Where you are signed in. Signing out everywhere ends each of them at once."</p>
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match sessions.await {
                    Ok(items) => Either::Left(view! { <SessionList items/> }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
        <form method="post" action=SignOutEverywhere::PATH class="account-actions">
            <button type="submit" class="button danger">"Sign out everywhere"</button>
        </form>
        <Passkeys/>
        <ApiTokens/>
    }
}

/// The person's passkeys, each with Remove, and the form for a new one.
#[component]
fn Passkeys() -> impl IntoView {
    let passkeys = Resource::new(|| (), |_| list_passkeys());
    view! {
        <h2 class="section-title">"Passkeys"</h2>
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match passkeys.await {
                    Ok(items) => Either::Left(view! { <PasskeyList items/> }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
        <AddPasskey/>
    }
}

/// The passkeys as a list; each removed by a plain form.
#[component]
fn PasskeyList(items: Vec<PasskeyItem>) -> impl IntoView {
    if items.is_empty() {
        return Either::Left(view! {
            <p class="page-intro">"You have no passkeys. Calls whose policy asks for one (step_up: passkey) wait until you add one."</p>
        });
    }
    Either::Right(view! {
        <ul class="session-list" aria-label="Passkeys">
            {items.into_iter().map(|p| view! {
                <li class="session">
                    <span class="person-shown">{p.name.clone()}</span>
                    <span class="session-used">"added " {p.created_label}</span>
                    <span class="session-used">{match p.last_used_label {
                        Some(used) => format!("last used {used}"),
                        None => "never used".to_owned(),
                    }}</span>
                    <form method="post" action=RemovePasskey::PATH class="person-action">
                        <input type="hidden" name="passkey_id" value=p.id/>
                        <button type="submit" class="button danger" aria-label=format!("Remove {}", p.name)>"Remove"</button>
                    </form>
                </li>
            }).collect_view()}
        </ul>
    })
}

/// The person's API tokens, each with Revoke, and the form for a new one.
#[component]
fn ApiTokens() -> impl IntoView {
    let tokens = Resource::new(|| (), |_| list_api_tokens());
    view! {
        <h2 class="section-title">"API tokens"</h2>
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match tokens.await {
                    Ok(items) => Either::Left(view! { <TokenList items/> }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
        <NewTokenForm/>
    }
}

/// The tokens as a list; each revoked by a plain form.
#[component]
fn TokenList(items: Vec<ApiTokenItem>) -> impl IntoView {
    if items.is_empty() {
        return Either::Left(view! { <p class="page-intro">"You have no API tokens."</p> });
    }
    Either::Right(view! {
        <ul class="session-list" aria-label="API tokens">
            {items.into_iter().map(|t| view! {
                <li class="session">
                    <span class="person-shown">{t.label}</span>
                    <span class="session-used">"made " {t.created_label}</span>
                    <span class="session-used">{match t.last_used_label {
                        Some(used) => format!("last used {used}"),
                        None => "never used".to_owned(),
                    }}</span>
                    <form method="post" action=RevokeApiToken::PATH class="person-action">
                        <input type="hidden" name="token_id" value=t.id/>
                        <button type="submit" class="button danger">"Revoke"</button>
                    </form>
                </li>
            }).collect_view()}
        </ul>
    })
}

/// The sessions as a list.
#[component]
fn SessionList(items: Vec<SessionItem>) -> impl IntoView {
    view! {
        <ul class="session-list">
            {items.into_iter().map(|s| view! {
                <li class="session">
                    <span class="session-when">"Signed in " {s.started_label}</span>
                    <span class="session-used">"last used " {s.last_used_label}</span>
                    {s.current.then(|| view! { <span class="badge">"This browser"</span> })}
                </li>
            }).collect_view()}
        </ul>
    }
}
