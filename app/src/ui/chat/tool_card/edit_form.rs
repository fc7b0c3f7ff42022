//! Editing a pending call's arguments in the chat: the shared JSON editor
//! in a form that posts to `edit_call`.

use leptos::prelude::*;

use crate::server_fns::approvals::EditCall;
use crate::ui::common::arguments_editor::ArgumentsEditor;
use crate::wire::ToolCallItem;

/// A JSON editor with `Approve with changes`.
#[component]
pub fn EditForm(
    call: ToolCallItem,
    action: ServerAction<EditCall>,
    busy: Signal<bool>,
) -> impl IntoView {
    view! {
        <ActionForm action=action>
            <input type="hidden" name="call_id" value=call.id.clone()/>
            <ArgumentsEditor initial=call.arguments_text() busy/>
        </ActionForm>
    }
}
