//! `airlock pending --watch`: the waiting calls, drawn again as soon as
//! the inbox's event stream says a call came or was decided, and now and
//! then for the ages. Airlock going away for a while (a restart) is waited
//! out, and the stream opened again.

use std::io::IsTerminal;
use std::time::Duration;

use chrono::Utc;
use tokio::time::Instant;

use super::pending::{fetch, table, to_json, Filter};
use super::{Client, Failure, UNAVAILABLE};

/// With nothing changed, the list is drawn again this often, so the ages
/// it shows stay true.
const AGES_EVERY: Duration = Duration::from_secs(30);
/// How long to wait before opening the stream again after it ended.
const RETRY_AFTER: Duration = Duration::from_secs(2);
/// Changes that come together (Approve all) are drawn once.
const SETTLE: Duration = Duration::from_millis(100);

/// What is on the screen, and whether Airlock was last seen away.
struct Screen {
    json: bool,
    clear: bool,
    shown: String,
    away: bool,
}

/// Lists the waiting calls, and again whenever they change, until
/// interrupted.
pub async fn watch(client: &Client, filter: &Filter, json: bool) -> Result<(), Failure> {
    let mut screen = Screen {
        json,
        clear: !json && std::io::stdout().is_terminal(),
        shown: String::new(),
        away: false,
    };
    loop {
        match follow(client, filter, &mut screen).await {
            // The stream ended (Airlock stopped): open it again.
            Ok(()) => {}
            Err(failure) if failure.code == UNAVAILABLE => {
                if !screen.away {
                    eprintln!("airlock: {}; trying again", failure.message);
                    screen.away = true;
                }
            }
            Err(failure) => return Err(failure),
        }
        tokio::time::sleep(RETRY_AFTER).await;
    }
}

/// Opens the inbox stream, draws the list, and draws it again on each
/// change the stream reports, until the stream ends.
async fn follow(client: &Client, filter: &Filter, screen: &mut Screen) -> Result<(), Failure> {
    let mut events = client.events("/api/approvals/events").await?;
    // Listed after the stream opened, so no change falls between the two.
    screen.draw(client, filter).await?;
    let mut drawn = Instant::now();
    let mut due: Option<Instant> = None;
    loop {
        let wake = due.unwrap_or(drawn + AGES_EVERY);
        tokio::select! {
            chunk = events.chunk() => match chunk {
                Ok(Some(bytes)) if reports_a_change(&bytes) => {
                    due.get_or_insert(Instant::now() + SETTLE);
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return Ok(()),
            },
            () = tokio::time::sleep_until(wake) => {
                screen.draw(client, filter).await?;
                drawn = Instant::now();
                due = None;
            }
        }
    }
}

/// Whether a piece of the stream holds more than the comments that keep it
/// open. A piece cut mid-event may count as a change: one more listing.
fn reports_a_change(bytes: &[u8]) -> bool {
    bytes
        .split(|byte| *byte == b'\n')
        .any(|line| !line.is_empty() && !line.starts_with(b":"))
}

impl Screen {
    /// Lists the calls, and prints them when they differ from what is shown.
    async fn draw(&mut self, client: &Client, filter: &Filter) -> Result<(), Failure> {
        let listed = fetch(client, filter).await?;
        self.away = false;
        let text = match self.json {
            true => format!("{}\n", to_json(&listed.calls, false)),
            false => table(&listed, Utc::now()),
        };
        if text == self.shown {
            return Ok(());
        }
        if self.clear {
            print!("\x1b[2J\x1b[H");
            println!("Waiting at {} (live; Ctrl-C to stop)\n", client.base());
        }
        print!("{text}");
        self.shown = text;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::reports_a_change;

    #[test]
    fn comments_that_keep_the_stream_open_are_no_change() {
        assert!(!reports_a_change(b":\n\n"));
        assert!(!reports_a_change(b": keep-alive\n\n"));
        assert!(reports_a_change(
            b"id: 7\nevent: tool_call.created\ndata: {}\n\n"
        ));
        assert!(reports_a_change(b"data: {\"id\":"));
    }
}
