//! The chat: messages, tool call cards and the composer, kept live.

pub mod chat_view;
pub mod composer;
pub mod live;
pub mod pending_bar;
pub mod show_earlier;
pub mod stop_button;
pub mod timeline;
pub mod tool_card;
