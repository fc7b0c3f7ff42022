//! The rounds before a case, when the agent asked it again after an
//! earlier answer (`previous_case_id`): each round's call as it was
//! decided, so the reviewer sees what changed and what was said before.

use leptos::prelude::*;

use crate::ui::chat::tool_card::ToolCard;
use crate::wire::ReviewItem;

/// The earlier rounds, oldest first; nothing when there are none.
#[component]
pub fn EarlierRounds(rounds: Vec<ReviewItem>) -> impl IntoView {
    let on_decided = Callback::new(move |_| {});
    (!rounds.is_empty()).then(move || {
        let items = rounds
            .into_iter()
            .enumerate()
            .map(|(index, round)| {
                view! {
                    <li class="round">
                        <p class="context-label">{format!("Round {}", index + 1)}</p>
                        <ToolCard call=round.call on_decided/>
                    </li>
                }
            })
            .collect_view();
        view! {
            <section class="review-rounds" aria-labelledby="rounds-title">
                <h2 id="rounds-title">"Earlier rounds"</h2>
                <p class="rounds-note">"The agent asked again after each of these answers."</p>
                <ol class="rounds">{items}</ol>
            </section>
        }
    })
}
