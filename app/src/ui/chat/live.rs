//! A conversation as the browser holds it, kept current by its event stream.

use leptos::prelude::*;

use crate::wire::{MessageItem, ToolCallItem};

/// What a live conversation updates.
#[derive(Debug, Clone, Copy)]
pub struct LiveChat {
    /// Its messages.
    pub messages: RwSignal<Vec<MessageItem>>,
    /// Its tool calls.
    pub calls: RwSignal<Vec<ToolCallItem>>,
    /// Whether the agent is working.
    pub working: RwSignal<bool>,
    /// Whether the stream is reconnecting.
    pub reconnecting: RwSignal<bool>,
}

/// The event kinds a conversation's stream carries.
pub const CHAT_EVENTS: &[&str] = &[
    "message.created",
    "tool_call.created",
    "tool_call.updated",
    "run.updated",
];

impl LiveChat {
    /// Adds a message unless it is already shown.
    pub fn add_message(&self, message: MessageItem) {
        self.messages.update(|list| {
            if !list.iter().any(|m| m.id == message.id) {
                let at = list.partition_point(|m| m.seq < message.seq);
                list.insert(at, message);
            }
        });
    }

    /// Adds or replaces a call, never with an older copy of itself.
    pub fn put_call(&self, call: ToolCallItem) {
        self.calls
            .update(|list| match list.iter_mut().find(|c| c.id == call.id) {
                Some(existing) if call.is_newer_than(existing) => *existing = call,
                Some(_) => {}
                None => list.push(call),
            });
    }

    /// Applies one stream event.
    pub fn apply(&self, kind: &str, data: &str) {
        match kind {
            "message.created" => {
                if let Ok(m) = serde_json::from_str::<MessageItem>(data) {
                    self.add_message(m);
                }
            }
            "tool_call.created" | "tool_call.updated" => {
                if let Ok(c) = serde_json::from_str::<ToolCallItem>(data) {
                    self.put_call(c);
                }
            }
            "run.updated" => {
                if let Ok(run) = serde_json::from_str::<serde_json::Value>(data) {
                    self.working.set(run["status"] == "running");
                }
            }
            _ => {}
        }
    }
}
