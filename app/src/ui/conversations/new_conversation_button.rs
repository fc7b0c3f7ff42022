//! The "New conversation" button, and the remote agents a conversation
//! may be held with instead of Airlock's own.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;

use crate::server_fns::conversations::{remote_agents, CreateConversation};

/// A plain form: the server answers the post with a redirect to the new
/// conversation, so no code of it runs in the browser. With remote agents
/// configured (`a2a:`), it asks whom to talk to first.
#[component]
pub fn NewConversationButton() -> impl IntoView {
    let agents = Resource::new(|| (), |_| remote_agents());
    let choice = move |agents: Vec<String>| {
        (!agents.is_empty()).then(|| {
            let options = agents
                .into_iter()
                .map(|agent| {
                    let value = agent.clone();
                    view! { <option value=value>{agent}</option> }
                })
                .collect_view();
            view! {
                <label class="new-with">
                    "With "
                    <select name="agent">
                        <option value="">"Airlock's agent"</option>
                        {options}
                    </select>
                </label>
            }
        })
    };
    view! {
        <form class="new-conversation" method="post" action=CreateConversation::PATH>
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move { choice(agents.await.unwrap_or_default()) })}
            </Suspense>
            <button type="submit" class="button primary">"New conversation"</button>
        </form>
    }
}
