//! The grants on the "Always allowed" page: those in force, each with
//! "Revoke", then those revoked or ended, as a record.

use leptos::prelude::*;

use super::revoke_button::RevokeButton;
use crate::wire::GrantItem;

/// What a grant is: the tool and its source, where it applies (everywhere,
/// or in a conversation, linked), who granted it, and when, or when it was
/// revoked.
#[component]
fn GrantText(item: GrantItem) -> impl IntoView {
    let scope = match (item.conversation_id, item.conversation_title) {
        (Some(id), Some(title)) => view! {
            "In "<a href=format!("/c/{id}")>{title}</a>
        }
        .into_any(),
        _ => view! { "Everywhere" }.into_any(),
    };
    // How long it lasts: until a time, until it ended, or until revoked.
    let lasts = match (&item.ends_label, item.ended, &item.revoked_label) {
        (Some(end), false, None) => Some(format!(" · until {end}")),
        (Some(end), true, None) => Some(format!(" · ended {end}")),
        _ => None,
    };
    let when = match (item.revoked_label, item.revoked_by) {
        (Some(revoked), Some(by)) => view! { "revoked " {revoked} " by " {by} }.into_any(),
        (Some(revoked), None) => view! { "revoked " {revoked} }.into_any(),
        (None, _) => view! {
            <time datetime=item.created_at>{item.created_label}</time>
        }
        .into_any(),
    };
    view! {
        <div class="grant-text">
            <span class="grant-tool">
                <code>{item.tool}</code>
                " "
                <span class="grant-source">{item.source}</span>
                {item.arguments_label.map(|rule| view! { " " <span class="grant-rule">{rule}</span> })}
            </span>
            <span class="grant-scope">{scope}</span>
            <span class="grant-meta">"Allowed by " {item.created_by} " · " {when} {lasts}</span>
        </div>
    }
}

/// Grants in force, then revoked ones; with none at all, what grants are.
#[component]
pub fn GrantList(items: Vec<GrantItem>) -> impl IntoView {
    if items.is_empty() {
        return view! {
            <section class="empty-state">
                <h2>"Nothing is always allowed"</h2>
                <p>
                    "When you choose Always allow on a card, its tool runs without asking from then on, in that conversation or everywhere. Those choices show here, and you can revoke them."
                </p>
            </section>
        }
        .into_any();
    }
    let (revoked, active): (Vec<_>, Vec<_>) = items
        .into_iter()
        .partition(|g| g.revoked_label.is_some() || g.ended);
    let active_list = if active.is_empty() {
        view! { <p class="grant-none">"Nothing is always allowed now."</p> }.into_any()
    } else {
        view! {
            <ul class="grant-list" aria-label="Always allowed tools">
                {active
                    .into_iter()
                    .map(|item| {
                        let grant_id = item.id.clone();
                        view! {
                            <li class="grant">
                                <GrantText item/>
                                <RevokeButton grant_id/>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
        .into_any()
    };
    let revoked_list = (!revoked.is_empty()).then(|| {
        view! {
            <h2 class="grant-heading">"Revoked or ended"</h2>
            <ul class="grant-list revoked" aria-label="Revoked or ended">
                {revoked
                    .into_iter()
                    .map(|item| view! { <li class="grant"><GrantText item/></li> })
                    .collect_view()}
            </ul>
        }
    });
    view! { {active_list} {revoked_list} }.into_any()
}
