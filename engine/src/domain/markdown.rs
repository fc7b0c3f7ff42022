//! The agent's Markdown, rendered safely: raw HTML in the text is shown as
//! text, links may only lead to the web, mail or this site, and images are
//! shown as their description (no request leaves for an address the model
//! chose). It runs on the server only: pages and live events carry the HTML
//! (see [`crate::domain::Message::to_json`]), so a live message looks exactly like a
//! reloaded one and the browser downloads no Markdown parser (about a tenth
//! of its bundle, most of it the table of named HTML entities).

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag, TagEnd};

/// A link target that cannot run script: web, mail, or a relative address.
fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    let allowed = ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| lower.starts_with(scheme))
        || !lower.contains(':');
    if allowed {
        url
    } else {
        CowStr::Borrowed("#")
    }
}

/// Markdown to HTML that is safe to put into the page.
pub fn to_safe_html(text: &str) -> String {
    let options =
        Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(text, options).filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Some(Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        })),
        Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
        other => Some(other),
    });
    let mut out = String::with_capacity(text.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

/// A reply being written, piece by piece. Whenever a piece ends a line, the
/// reply up to that line is rendered, so a reply reads formatted while it
/// streams, a line behind its text, instead of as raw Markdown until it is
/// stored. Rendering happens here, once per line, not in each browser.
#[derive(Debug, Default)]
pub struct Drafting {
    written: std::sync::Mutex<String>,
}

impl Drafting {
    /// Adds `piece`; when it ends a line, the HTML of every complete line.
    pub fn add(&self, piece: &str) -> Option<String> {
        let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        written.push_str(piece);
        if !piece.contains('\n') {
            return None;
        }
        let complete = written.rfind('\n').map_or(0, |i| i + 1);
        Some(to_safe_html(&written[..complete]))
    }

    /// Everything added so far.
    pub fn written(&self) -> String {
        self.written
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draft_renders_its_complete_lines() {
        let drafting = Drafting::default();
        assert_eq!(drafting.add("Hello **the"), None);
        assert_eq!(
            drafting.add("re**\n- a"),
            Some("<p>Hello <strong>there</strong></p>\n".to_owned())
        );
        assert_eq!(
            drafting.add("\n"),
            Some("<p>Hello <strong>there</strong></p>\n<ul>\n<li>a</li>\n</ul>\n".to_owned())
        );
        // What the model writes is rendered as safely as a stored reply.
        let html = drafting.add("<img src=x onerror=alert(1)>\n").unwrap();
        assert!(html.contains("&lt;img"), "{html}");
    }

    #[test]
    fn markdown_becomes_html() {
        assert_eq!(
            to_safe_html("Hello **there**\n\n- `a.txt`\n- b"),
            "<p>Hello <strong>there</strong></p>\n<ul>\n<li><code>a.txt</code></li>\n<li>b</li>\n</ul>\n"
        );
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        let html =
            to_safe_html("<script>alert(1)</script>\n\nsee <img src=x onerror=alert(1)> here");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(
            html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{html}"
        );
    }

    #[test]
    fn links_cannot_run_script_and_images_stay_text() {
        for evil in [
            "[x](javascript:alert(1))",
            "[x](JavaScript:alert(1))",
            "[x](java&#115;cript:alert(1))",
            "[x](data:text/html,hi)",
        ] {
            let html = to_safe_html(evil);
            assert!(html.contains(r##"<a href="#">x</a>"##), "{evil} → {html}");
        }
        assert!(to_safe_html("[docs](https://example.com/a)")
            .contains(r#"href="https://example.com/a""#));
        assert!(to_safe_html("[c](/c/conv_1)").contains(r#"href="/c/conv_1""#));
        let image = to_safe_html("![a chart](https://tracker.example/pixel.png)");
        assert_eq!(image, "<p>a chart</p>\n");
    }
}
