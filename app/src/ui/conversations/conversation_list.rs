//! The list of conversations on the home page. It is rendered on the server
//! only, for the page and for the list's stream, so none of its code goes
//! to the browser (see `live_list.rs`).

use leptos::either::Either;
use leptos::prelude::*;

use crate::wire::ConversationItem;

/// "1 message", "3 messages".
fn messages_label(count: i64) -> String {
    match count {
        1 => "1 message".to_owned(),
        n => format!("{n} messages"),
    }
}

/// "1 waiting for approval", or nothing when none waits.
fn waiting_label(count: i64) -> Option<String> {
    match count {
        0 => None,
        1 => Some("1 waiting for approval".to_owned()),
        n => Some(format!("{n} waiting for approval")),
    }
}

/// One link per conversation with its title, age, size and how many of its
/// calls wait for approval; with none yet, how to start.
#[component]
pub fn ConversationList(items: Vec<ConversationItem>) -> impl IntoView {
    if items.is_empty() {
        return Either::Left(view! {
            <section class="empty-state">
                <h2>"No conversations yet"</h2>
                <p>
                    "Start one and ask the agent to do something. Actions that need your approval wait for you as cards you can approve, edit or reject."
                </p>
            </section>
        });
    }
    Either::Right(view! {
        <ul class="conversation-list" aria-label="Conversations">
            {items
                .into_iter()
                .map(|item| {
                    let waiting = waiting_label(item.pending_count)
                        .map(|text| view! { <span class="pending-badge">{text}</span> });
                    let failed = item.last_run_failed.then(|| view! {
                        <span class="failed-badge">"Agent stopped with an error"</span>
                    });
                    let session = item.agent_session.then(|| view! {
                        <span class="session-badge">"Agent session"</span>
                    });
                    // An agent's session holds its calls, never messages.
                    let size = (!item.agent_session)
                        .then(|| format!(" · {}", messages_label(item.message_count)));
                    view! {
                        <li>
                            <a class="conversation-link" href=format!("/c/{}", item.id)>
                                <span class="conversation-title">{item.title} {session} {waiting} {failed}</span>
                                <span class="conversation-meta">
                                    <time datetime=item.updated_at>{item.updated_label}</time>
                                    {size}
                                </span>
                            </a>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_people_say_them() {
        assert_eq!(messages_label(0), "0 messages");
        assert_eq!(messages_label(1), "1 message");
        assert_eq!(messages_label(12), "12 messages");
        assert_eq!(waiting_label(0), None);
        assert_eq!(waiting_label(1).as_deref(), Some("1 waiting for approval"));
        assert_eq!(waiting_label(3).as_deref(), Some("3 waiting for approval"));
    }
}
