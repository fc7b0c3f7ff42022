//! The people page, for administrators: who signs in, with what access, a
//! form to add someone, a way to set a person's e-mail address, and a way
//! to disable a person (their sessions end at once). Every form is plain: it works without JavaScript.

use leptos::either::Either;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;

mod email_form;

use crate::server_fns::people::{list_people, AddPerson, DisablePerson, SetEmail};
use crate::ui::common::load_error::LoadError;
use crate::ui::common::post_form::failed_post;
use crate::wire::PersonItem;
use email_form::EmailForm;

/// Lists people and offers adding and disabling.
#[component]
pub fn PeoplePage() -> impl IntoView {
    let people = Resource::new(|| (), |_| list_people());
    let failed = failed_post::<AddPerson>()
        .or_else(failed_post::<DisablePerson>)
        .or_else(failed_post::<SetEmail>)
        .map(|e| e.to_string());
    view! {
        <Title text="People"/>
        <div class="page-head">
            <h1>"People"</h1>
        </div>
        {failed.map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match people.await {
                    Ok(items) => Either::Left(view! { <PeopleList items/> <AddPersonForm/> }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}

/// Everyone, with Disable for those who still sign in.
#[component]
fn PeopleList(items: Vec<PersonItem>) -> impl IntoView {
    view! {
        <ul class="people-list">
            {items.into_iter().map(|p| {
                let email_form = view! {
                    <EmailForm id=p.id.clone() shown=p.display_name.clone() email=p.email.clone()/>
                };
                view! {
                <li class="person">
                    <span class="person-shown">{p.display_name}</span>
                    <span class="person-login">{p.name}</span>
                    {p.email.map(|email| view! { <span class="person-email">{email}</span> })}
                    <span class="badge">{p.access}</span>
                    {p.groups.into_iter().map(|g| view! {
                        <span class="badge group" title="Approver group">{g}</span>
                    }).collect_view()}
                    {if p.disabled || p.you {
                        let note = if p.disabled { "Disabled" } else { "You" };
                        Either::Left(view! { <span class="person-disabled">{note}</span> })
                    } else {
                        Either::Right(view! {
                            <form method="post" action=DisablePerson::PATH class="person-action">
                                <input type="hidden" name="person_id" value=p.id/>
                                <button type="submit" class="button danger">"Disable"</button>
                            </form>
                        })
                    }}
                    {email_form}
                </li>
                }
            }).collect_view()}
        </ul>
    }
}

/// Name, display name, access and a first password.
#[component]
fn AddPersonForm() -> impl IntoView {
    view! {
        <section class="add-person" aria-labelledby="add-person-title">
            <h2 id="add-person-title">"Add a person"</h2>
            <form method="post" action=AddPerson::PATH class="add-person-form">
                <label for="person-name">"Name"</label>
                <input id="person-name" name="name" type="text" autocomplete="off"
                    autocapitalize="none" spellcheck="false" required=true/>
                <label for="person-display-name">"Display name"</label>
                <input id="person-display-name" name="display_name" type="text" autocomplete="off"/>
                <label for="person-email">"E-mail (optional, for deciding from Slack)"</label>
                <input id="person-email" name="email" type="email" autocomplete="off"
                    autocapitalize="none" spellcheck="false"/>
                <label for="person-access">"Access"</label>
                <select id="person-access" name="access">
                    <option value="approver" selected=true>"Approver: decides calls"</option>
                    <option value="viewer">"Viewer: reads only"</option>
                    <option value="admin">"Administrator: also people and grants"</option>
                </select>
                <label for="person-password">"First password"</label>
                <input id="person-password" name="password" type="password"
                    autocomplete="new-password" minlength="12" required=true/>
                <button type="submit" class="button primary">"Add"</button>
            </form>
        </section>
    }
}
