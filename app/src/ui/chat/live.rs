//! Follows a conversation's event stream in the browser. On the server (and
//! before hydration) it does nothing: the page already holds the stored state.

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

/// Opens the stream after hydration and closes it when the view goes away.
pub fn follow(url: String, live: LiveChat) {
    #[cfg(feature = "hydrate")]
    {
        use leptos::wasm_bindgen::closure::Closure;
        use leptos::wasm_bindgen::JsCast;
        use send_wrapper::SendWrapper;

        let Ok(source) = web_sys::EventSource::new(&url) else {
            live.reconnecting.set(true);
            return;
        };
        let mut closures = Vec::new();
        for kind in [
            "message.created",
            "tool_call.created",
            "tool_call.updated",
            "run.updated",
        ] {
            let on_event =
                Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                    if let Some(data) = e.data().as_string() {
                        live.apply(kind, &data);
                    }
                });
            let _ =
                source.add_event_listener_with_callback(kind, on_event.as_ref().unchecked_ref());
            closures.push(on_event);
        }
        // The browser reconnects by itself, sending Last-Event-ID; we only show it.
        let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |_| live.reconnecting.set(true));
        let on_open = Closure::<dyn Fn(web_sys::Event)>::new(move |_| live.reconnecting.set(false));
        source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        let held = SendWrapper::new((source, closures, on_error, on_open));
        on_cleanup(move || held.0.close());
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (url, live);
}
