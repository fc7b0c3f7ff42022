//! A tool people approve nearly always and fast: why it is flagged, the
//! rule that would allow it, and what the last week would have been under
//! that rule. Nothing is applied: the operator decides.

use leptos::prelude::*;

use crate::wire::ToolInsightItem;

/// One flagged tool.
#[component]
pub fn RubberStamp(tool: ToolInsightItem) -> impl IntoView {
    let Some(stamp) = tool.rubber_stamp else {
        return ().into_any();
    };
    let replay = if stamp.replay.is_empty() {
        format!(
            "Replaying its {} calls of the last 7 days under this rule changes nothing.",
            stamp.replayed
        )
    } else {
        format!(
            "Replaying its {} calls of the last 7 days under this rule: {}.",
            stamp.replayed,
            stamp.replay.join(", ")
        )
    };
    let name = format!("{} from {}", tool.tool, tool.source);
    let undoes_refusals = stamp
        .replay
        .iter()
        .any(|change| !change.ends_with("ask → allow"));
    view! {
        <article class="insights-card" aria-label=name>
            <h3><code>{tool.tool}</code> " from " {tool.source}</h3>
            <p>"People " {stamp.summary} ": asking them may only tire them."</p>
            <p>"To allow it without asking, add this to the configuration file:"</p>
            <pre class="insights-yaml"><code>{stamp.rule_yaml}</code></pre>
            <p class="insights-replay">{replay}</p>
            {undoes_refusals.then(|| view! {
                <p class="insights-warning" role="note">
                    "This rule would also allow calls the policy refuses today: give it a " <code>"when:"</code>
                    " that keeps them out, and check it with " <code>"airlock policy replay"</code> "."
                </p>
            })}
        </article>
    }
    .into_any()
}
