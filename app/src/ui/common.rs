//! Small pieces shared by several pages.

pub mod arguments_editor;
pub mod event_stream;
pub mod form_field;
pub mod live_list;
pub mod load_error;
pub mod passkey_button;
pub mod post_form;
pub mod query;
pub mod reveal;
pub mod sources_down;
