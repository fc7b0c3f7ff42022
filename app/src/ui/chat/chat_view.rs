//! One conversation's chat.

use leptos::either::Either;
use leptos::prelude::*;

use crate::ui::chat::composer::Composer;
use crate::ui::chat::live::{LiveChat, CHAT_EVENTS};
use crate::ui::chat::pending_bar::{PendingBar, Waiting};
use crate::ui::chat::show_earlier::ShowEarlier;
use crate::ui::chat::stop_button::StopButton;
use crate::ui::chat::timeline::Timeline;
use crate::ui::chat::tool_card::notices::LiveNotices;
use crate::ui::common::event_stream::follow;
use crate::ui::common::post_form::Post;
use crate::ui::common::sources_down::SourcesDown;
use crate::wire::{ConversationDetail, PostedMessage, ToolCallItem};

/// The chat of a loaded conversation. It keeps the conversation in local
/// signals, appends what the server confirms, and follows the live stream
/// from the position the page was rendered at. An island: the only part of
/// the conversation page that runs in the browser.
// An island, except in the browser bundles of pages without it, where it is
// a plain component that nothing uses (see `bundle_for`).
#[cfg_attr(any(not(feature = "hydrate"), feature = "chat_view"), island)]
#[cfg_attr(all(feature = "hydrate", not(feature = "chat_view")), component)]
pub fn ChatView(detail: ConversationDetail) -> impl IntoView {
    provide_context(detail.deciding.clone());
    let live = LiveChat {
        title: RwSignal::new(detail.title.clone()),
        messages: RwSignal::new(detail.messages),
        calls: RwSignal::new(detail.tool_calls),
        working: RwSignal::new(detail.working),
        reconnecting: RwSignal::new(false),
        draft: RwSignal::new(Default::default()),
        queued: RwSignal::new(detail.queued),
        earlier: RwSignal::new(detail.earlier),
        notices: LiveNotices::provide(),
    };
    // An earlier part of the conversation is a page of the past: it does
    // not follow the stream, and it is not written in.
    let earlier_part = detail.before.is_some();
    let post = Post::<PostedMessage>::new();
    Effect::new(move |_| {
        if let Some(Ok(posted)) = post.value().get() {
            // Whether the agent works is told by the stream's run events,
            // which may arrive before this answer does.
            // The title comes by the stream too, to every open chat; this
            // one shows it without waiting for that.
            if posted.queued {
                live.queued.update(|q| {
                    if !q.iter().any(|m| m.id == posted.message.id) {
                        q.push(posted.message)
                    }
                });
            } else {
                live.add_message(posted.message);
            }
            live.title.set(posted.conversation_title);
        }
    });
    let deciding = detail.deciding.clone();
    let stop_id = detail.id.clone();
    let waiting = Memo::new(move |_| Waiting::count(live.calls.read().iter(), &deciding));
    let on_decided = Callback::new(move |call: ToolCallItem| live.put_call(call));
    let url = format!(
        "/api/conversations/{}/events?after={}",
        detail.id, detail.cursor
    );
    Effect::new(move |started: Option<()>| {
        if started.is_none() && !earlier_part {
            let on_event =
                Callback::new(move |(kind, data): (&'static str, String)| live.apply(kind, &data));
            follow(url.clone(), CHAT_EVENTS, on_event, live.reconnecting);
        }
    });

    view! {
        <div class="chat">
            <div class="chat-head">
                <a class="back-link" href="/">"← Conversations"</a>
                <h1>{move || live.title.get()}</h1>
                {detail.remote_agent.clone().map(|agent| view! {
                    <p class="chat-agent">"With "<strong>{agent}</strong>", a remote agent (A2A)"</p>
                })}
                <Show when=move || live.reconnecting.get()>
                    <span class="live-badge" role="status">"Reconnecting…"</span>
                </Show>
            </div>
            {detail.model_problem.map(|problem| view! {
                <p class="model-banner" role="alert">{problem}</p>
            })}
            <SourcesDown notes=detail.sources_down/>
            <ShowEarlier conversation_id=detail.id.clone() live/>
            <Timeline live demo=detail.demo_model/>
            <Show when=move || live.working.get()>
                <div class="working">
                    <p role="status">{move || live.doing()}</p>
                    {detail.may_write.then(|| view! { <StopButton conversation_id=stop_id.clone()/> })}
                </div>
            </Show>
            {(detail.deciding.may_decide && !earlier_part).then(|| view! {
                <PendingBar conversation_id=detail.id.clone() waiting on_decided label="Pending approvals"/>
            })}
            {if earlier_part {
                let latest = format!("/c/{}", detail.id);
                Either::Right(view! {
                    <p class="read-only-note">"These are earlier messages. "<a href=latest>"Back to the latest"</a></p>
                }.into_any())
            } else if detail.agent_session {
                Either::Right(view! {
                    <p class="read-only-note">"An agent asks here through Airlock's gateway: its calls wait in this conversation for a decision, and nobody writes in it."</p>
                }.into_any())
            } else if detail.may_write {
                Either::Left(view! {
                    <Composer conversation_id=detail.id post working=live.working.read_only() demo=detail.demo_model/>
                })
            } else {
                Either::Right(view! {
                    <p class="read-only-note">"You can read this conversation; writing in it takes an approver's access."</p>
                }.into_any())
            }}
        </div>
    }
}
