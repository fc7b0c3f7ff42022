//! Follows a server-sent event stream in the browser. On the server (and
//! before hydration) it does nothing: the page already holds the stored state.

use leptos::prelude::*;

/// Opens `url` after hydration, hands each event of the given kinds to
/// `on_event` as (kind, data), shows reconnects through `reconnecting`, and
/// closes the stream when the view goes away.
pub fn follow(
    url: String,
    kinds: &'static [&'static str],
    on_event: Callback<(&'static str, String)>,
    reconnecting: RwSignal<bool>,
) {
    #[cfg(feature = "hydrate")]
    {
        use leptos::wasm_bindgen::closure::Closure;
        use leptos::wasm_bindgen::JsCast;
        use send_wrapper::SendWrapper;

        let Ok(source) = web_sys::EventSource::new(&url) else {
            reconnecting.set(true);
            return;
        };
        let mut closures = Vec::new();
        for kind in kinds {
            let kind: &'static str = kind;
            let on_message =
                Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                    if let Some(data) = e.data().as_string() {
                        on_event.run((kind, data));
                    }
                });
            let _ =
                source.add_event_listener_with_callback(kind, on_message.as_ref().unchecked_ref());
            closures.push(on_message);
        }
        // The browser reconnects by itself, sending Last-Event-ID; we only show it.
        let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |_| reconnecting.set(true));
        let on_open = Closure::<dyn Fn(web_sys::Event)>::new(move |_| reconnecting.set(false));
        source.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        source.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        let held = SendWrapper::new((source, closures, on_error, on_open));
        on_cleanup(move || held.0.close());
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (url, kinds, on_event, reconnecting);
}
