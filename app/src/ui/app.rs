//! The document shell and the router.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, HashedStylesheet, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{path, SsrMode};

use crate::ui::layout::header::AppHeader;
use crate::ui::pages::{
    account::AccountPage, allowed::AllowedPage, approvals::ApprovalsPage, audit::AuditPage,
    conversation::ConversationPage, home::HomePage, insights::InsightsPage, not_found::NotFound,
    people::PeoplePage, setup::SetupPage, sign_in::SignInPage, sources::SourcesPage,
};

/// The HTML document every routed page is rendered into.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    document(options, App)
}

/// The HTML document around `body`: the routed pages, or a page the server
/// renders itself (the review page, see `render.rs`).
pub fn document<B: IntoView + 'static>(
    options: LeptosOptions,
    body: impl FnOnce() -> B + Send + 'static,
) -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::csp::set_content_security_policy();
    let bundle = with_context(|parts: &http::request::Parts| bundle_for(parts.uri.path()));
    let scripts = bundle
        .unwrap_or_else(|| bundle_for("/"))
        .and_then(|bundle| bundle_options(&options, bundle))
        .map(|options| view! { <HydrationScripts options islands=true/> });
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta name="color-scheme" content="light dark"/>
                <link rel="icon" type="image/svg+xml" href="/favicon.svg"/>
                <HashedStylesheet options=options.clone() id="leptos"/>
                <AutoReload options=options.clone()/>
                {scripts}
                <MetaTags/>
            </head>
            <body>
                {body()}
            </body>
        </html>
    }
}

/// The browser bundle a page at `path` loads, with only its own islands'
/// code (`frontend/site.sh` builds each); none for a page without islands.
fn bundle_for(path: &str) -> Option<&'static str> {
    match path.split('/').nth(1).unwrap_or_default() {
        "c" => Some("chat"),
        "review" => Some("review"),
        "" | "approvals" | "allowed" | "sources" | "account" => Some("pages"),
        _ => None,
    }
}

/// `options` naming `bundle`'s files (`airlock-<bundle>.<hash>.js`, with
/// the names in `hash-<bundle>.txt` beside the site's `hash.txt`); none
/// when the site lacks them, and the page works without its script. A site
/// without names (cargo-leptos's, for `make dev`) has one bundle with every
/// island.
fn bundle_options(options: &LeptosOptions, bundle: &str) -> Option<LeptosOptions> {
    let mut options = options.clone();
    if options.hash_files {
        let names =
            std::path::Path::new(&*options.hash_file).with_file_name(format!("hash-{bundle}.txt"));
        if !names.exists() {
            return None;
        }
        options.output_name = format!("airlock-{bundle}").into();
        options.hash_file = names.to_string_lossy().into();
    }
    Some(options)
}

/// The application: header and routed pages.
///
/// Pages render with `SsrMode::Async`: the server waits for their data and
/// sends finished HTML, so a page works before (or without) hydration and a
/// missing conversation can still answer with status 404. The review page is
/// not among them: the server loads its case and renders it at once (see
/// `server/src/review_page.rs`), since it is the page opened most often.
#[component]
pub fn App() -> impl IntoView {
    view! {
        <Router>
            <Frame>
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=HomePage ssr=SsrMode::Async/>
                    <Route path=path!("/c/:id") view=ConversationPage ssr=SsrMode::Async/>
                    <Route path=path!("/approvals") view=ApprovalsPage ssr=SsrMode::Async/>
                    <Route path=path!("/allowed") view=AllowedPage ssr=SsrMode::Async/>
                    <Route path=path!("/sign-in") view=SignInPage ssr=SsrMode::Async/>
                    <Route path=path!("/setup") view=SetupPage ssr=SsrMode::Async/>
                    <Route path=path!("/account") view=AccountPage ssr=SsrMode::Async/>
                    <Route path=path!("/people") view=PeoplePage ssr=SsrMode::Async/>
                    <Route path=path!("/sources") view=SourcesPage ssr=SsrMode::Async/>
                    <Route path=path!("/audit") view=AuditPage ssr=SsrMode::Async/>
                    <Route path=path!("/insights") view=InsightsPage ssr=SsrMode::Async/>
                </Routes>
            </Frame>
        </Router>
    }
}

/// What every page has around its content: the form of its title and the
/// header (the document's head links the stylesheet).
#[component]
pub fn Frame(children: Children) -> impl IntoView {
    provide_meta_context();
    view! {
        <Title formatter=|page: String| if page.is_empty() { "Airlock".to_owned() } else { format!("{page} · Airlock") }/>
        <AppHeader/>
        <main class="page">{children()}</main>
    }
}
