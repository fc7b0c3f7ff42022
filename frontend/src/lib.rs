//! The browser entry point. The server renders every page; this crate only
//! attaches Airlock's reactive behaviour to that HTML.

/// Brings the server-rendered page's islands to life.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    app::browser::start();
}
