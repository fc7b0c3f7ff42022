//! Editing a pending call's arguments in the chat: the shared JSON editor
//! in a form that posts to `edit_call`.

use leptos::prelude::*;

use crate::ui::common::arguments_editor::ArgumentsEditor;
use crate::ui::common::post_form::{PostForm, PostTarget};
use crate::wire::ToolCallItem;

/// A JSON editor with `Approve with changes`.
#[component]
pub fn EditForm(
    call: ToolCallItem,
    /// Where the form posts: `edit_call`.
    to: PostTarget,
    busy: Signal<bool>,
) -> impl IntoView {
    view! {
        <PostForm to>
            <input type="hidden" name="call_id" value=call.id.clone()/>
            <ArgumentsEditor initial=call.arguments_text() busy/>
        </PostForm>
    }
}
