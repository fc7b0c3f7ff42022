//! Every waiting call across conversations, by conversation, the one
//! waiting longest first. New ones arrive over the inbox's event stream;
//! decided ones stay in place, showing who decided, until the page is
//! reloaded.

use leptos::prelude::*;

use crate::ui::chat::tool_card::notices::LiveNotices;
use crate::ui::common::event_stream::follow;
use crate::ui::common::sources_down::SourcesDown;
use crate::ui::inbox::inbox_group::InboxGroup;
use crate::wire::{Inbox, InboxItem, ToolCallItem};

/// The event kinds of the inbox stream.
const INBOX_EVENTS: &[&str] = &["tool_call.created", "tool_call.updated"];

/// Adds a waiting call, or updates a listed one, never with an older copy.
fn put(items: &mut Vec<InboxItem>, call: ToolCallItem) {
    match items.iter_mut().find(|i| i.call.id == call.id) {
        Some(item) if call.is_newer_than(&item.call) => item.call = call,
        Some(_) => {}
        None if call.can_decide() => {
            let conversation_title = items
                .iter()
                .find(|i| i.call.conversation_id == call.conversation_id)
                .map(|i| i.conversation_title.clone())
                .unwrap_or_default();
            items.push(InboxItem {
                call,
                conversation_title,
                age_label: "just now".into(),
            });
        }
        None => {}
    }
}

/// The conversations of `items`, in the order their first call is listed.
fn conversations(items: &[InboxItem]) -> Vec<String> {
    // Recounted at every live event, over up to a thousand calls.
    let mut seen = std::collections::HashSet::new();
    items
        .iter()
        .map(|i| &i.call.conversation_id)
        .filter(|id| seen.insert(*id))
        .cloned()
        .collect()
}

/// Fills in the titles and ages of entries that arrived live (in the
/// browser, which alone follows the stream).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
fn name(items: &mut [InboxItem], fresh: &[InboxItem]) {
    for item in items.iter_mut().filter(|i| i.conversation_title.is_empty()) {
        if let Some(known) = fresh.iter().find(|f| f.call.id == item.call.id) {
            item.conversation_title = known.conversation_title.clone();
            item.age_label = known.age_label.clone();
        }
    }
}

/// The inbox list, with `children` (the page's filters) under its heading.
// An island, except in the browser bundles of pages without it, where it is
// a plain component that nothing uses (see `bundle_for`).
#[cfg_attr(any(not(feature = "hydrate"), feature = "inbox_view"), island)]
#[cfg_attr(all(feature = "hydrate", not(feature = "inbox_view")), component)]
pub fn InboxView(inbox: Inbox, children: Children) -> impl IntoView {
    provide_context(inbox.deciding.clone());
    // Those on other pages, as the server counted them; the ones here are
    // counted live.
    let here = inbox.items.iter().filter(|i| i.call.can_decide()).count();
    let elsewhere = usize::try_from(inbox.total)
        .unwrap_or_default()
        .saturating_sub(here);
    let items = RwSignal::new(inbox.items);
    let reconnecting = RwSignal::new(false);
    let notices = LiveNotices::provide();
    let on_decided = Callback::new(move |call: ToolCallItem| {
        notices.note(&call);
        items.update(|list| put(list, call));
    });
    // A call from a conversation the page has not seen arrives without its
    // title; one fresh read of the inbox names it.
    let on_arrival = Callback::new(move |call: ToolCallItem| {
        let unnamed = call.can_decide()
            && !items
                .read_untracked()
                .iter()
                .any(|i| i.call.conversation_id == call.conversation_id);
        on_decided.run(call);
        if unnamed {
            // Only the browser learns of arrivals.
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                use crate::server_fns::approvals::ListApprovals;
                use leptos::server_fn::ServerFn;
                let fresh = crate::browser::post::get::<Inbox>(ListApprovals::PATH).await;
                if let Ok(fresh) = fresh {
                    items.update(|list| name(list, &fresh.items));
                }
            });
        }
    });
    let url = format!("/api/approvals/events?after={}", inbox.cursor);
    let live = inbox.live;
    Effect::new(move |started: Option<()>| {
        if started.is_none() && live {
            let on_event = Callback::new(move |(_, data): (&'static str, String)| {
                if let Ok(call) = serde_json::from_str::<ToolCallItem>(&data) {
                    on_arrival.run(call);
                }
            });
            follow(url.clone(), INBOX_EVENTS, on_event, reconnecting);
        }
    });
    let waiting = move || items.read().iter().filter(|i| i.call.can_decide()).count();
    let groups = Memo::new(move |_| conversations(&items.read()));
    view! {
        <div class="page-head">
            <h1>"Approvals"</h1>
            <span class="pending-summary" role="status">
                {move || waiting_words(waiting(), elsewhere)}
            </span>
            <Show when=move || reconnecting.get()>
                <span class="live-badge" role="status">"Reconnecting…"</span>
            </Show>
        </div>
        {children()}
        <SourcesDown notes=inbox.sources_down/>
        <Show
            when=move || !items.read().is_empty()
            fallback=|| view! {
                <section class="empty-state">
                    <h2>"Nothing is waiting for you"</h2>
                    <p>"When the agent wants to run an action that needs a person's approval, it appears here with Approve and Reject, whichever conversation it came from."</p>
                </section>
            }
        >
            <ol class="inbox" aria-label="Waiting approvals">
                <For each=move || groups.get() key=|id| id.clone() let:conversation_id>
                    <InboxGroup conversation_id items on_decided/>
                </For>
            </ol>
        </Show>
    }
}

/// "Nothing waiting", "3 waiting", or "100 of 1,001 waiting" when
/// `elsewhere` more wait on other pages.
fn waiting_words(here: usize, elsewhere: usize) -> String {
    match (here, elsewhere) {
        (0, 0) => "Nothing waiting".to_owned(),
        (n, 0) => format!("{} waiting", grouped(n)),
        (n, more) => format!("{} of {} waiting", grouped(n), grouped(n + more)),
    }
}

/// 1001 as "1,001".
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_count_says_how_many_wait_on_every_page() {
        assert_eq!(waiting_words(0, 0), "Nothing waiting");
        assert_eq!(waiting_words(1, 0), "1 waiting");
        assert_eq!(waiting_words(100, 901), "100 of 1,001 waiting");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(999), "999");
    }

    use super::*;

    fn call(id: &str, conversation: &str, status: &str) -> ToolCallItem {
        serde_json::from_value(serde_json::json!({
            "id": id, "conversation_id": conversation, "batch_id": "b", "message_seq": 1,
            "source": "demo", "tool": "delete_file", "arguments": {"path": "a"},
            "original_arguments": null, "status": status, "policy_reason": "r",
            "expires_at": null, "decision": null, "result": null, "error": null,
            "created_at": "2026-11-23T10:00:00Z"
        }))
        .unwrap()
    }

    #[test]
    fn new_waiting_calls_join_and_decided_ones_update_in_place() {
        let mut items = vec![InboxItem {
            call: call("c1", "conv_a", "pending_approval"),
            conversation_title: "Tidy up".into(),
            age_label: "5 min ago".into(),
        }];
        put(&mut items, call("c2", "conv_a", "pending_approval"));
        put(&mut items, call("c3", "conv_b", "completed"));
        put(&mut items, call("c1", "conv_a", "rejected"));
        put(&mut items, call("c1", "conv_a", "pending_approval"));
        let seen: Vec<_> = items
            .iter()
            .map(|i| {
                (
                    i.call.id.as_str(),
                    i.call.status.as_str(),
                    i.conversation_title.as_str(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("c1", "rejected", "Tidy up"),
                ("c2", "pending_approval", "Tidy up")
            ]
        );
    }

    #[test]
    fn calls_are_grouped_by_conversation_in_the_order_each_first_waited() {
        let item = |id: &str, conversation: &str| InboxItem {
            call: call(id, conversation, "pending_approval"),
            conversation_title: String::new(),
            age_label: String::new(),
        };
        let items = [
            item("c1", "conv_b"),
            item("c2", "conv_a"),
            item("c3", "conv_b"),
            item("c4", "conv_c"),
            item("c5", "conv_a"),
        ];
        assert_eq!(conversations(&items), ["conv_b", "conv_a", "conv_c"]);
        assert!(conversations(&[]).is_empty());
    }
}
