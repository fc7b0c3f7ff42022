//! `airlock pending [--watch]`: the calls waiting for a decision, as a
//! table for people or JSON for scripts.

use std::io::IsTerminal;
use std::time::Duration;

use chrono::{DateTime, Utc};

use engine::domain::{AGENT_SOURCE, QUESTION_TOOL};

use super::{Client, Failure, UNAVAILABLE};
use crate::calls_api::{CallBody, PendingPage};

/// Which waiting calls to list.
#[derive(Debug, Default)]
pub struct Filter {
    pub source: Option<String>,
    pub tool: Option<String>,
}

/// What one listing found.
#[derive(Debug)]
struct Listed {
    calls: Vec<CallBody>,
    /// More wait than the pages read hold.
    more: bool,
}

/// At most so many pages (of 100 calls) are read for one listing.
const MOST_PAGES: usize = 10;

/// How often `--watch` asks again.
const WATCH_EVERY: Duration = Duration::from_secs(2);

/// Lists the waiting calls once.
pub async fn list(client: &Client, filter: &Filter, json: bool) -> Result<(), Failure> {
    let listed = fetch(client, filter).await?;
    match json {
        true => println!("{}", to_json(&listed.calls, true)),
        false => print!("{}", table(&listed, Utc::now())),
    }
    Ok(())
}

/// Lists the waiting calls again whenever they change, until interrupted.
/// Airlock going away for a while (a restart) is waited out.
pub async fn watch(client: &Client, filter: &Filter, json: bool) -> Result<(), Failure> {
    let clear = !json && std::io::stdout().is_terminal();
    let mut shown = String::new();
    let mut away = false;
    loop {
        match fetch(client, filter).await {
            Ok(listed) => {
                away = false;
                let text = match json {
                    true => format!("{}\n", to_json(&listed.calls, false)),
                    false => table(&listed, Utc::now()),
                };
                if text != shown {
                    if clear {
                        print!("\x1b[2J\x1b[H");
                        println!("Waiting at {} (every 2 s; Ctrl-C to stop)\n", client.base());
                    }
                    print!("{text}");
                    shown = text;
                }
            }
            Err(failure) if failure.code == UNAVAILABLE => {
                if !away {
                    eprintln!("airlock: {}; trying again", failure.message);
                    away = true;
                }
            }
            Err(failure) => return Err(failure),
        }
        tokio::time::sleep(WATCH_EVERY).await;
    }
}

async fn fetch(client: &Client, filter: &Filter) -> Result<Listed, Failure> {
    let mut calls = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..MOST_PAGES {
        let query: Vec<(&str, &str)> = [
            ("after", &after),
            ("source", &filter.source),
            ("tool", &filter.tool),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value.as_deref()?)))
        .collect();
        let page: PendingPage = client.get("/api/v1/calls/pending", &query).await?;
        calls.extend(page.calls);
        match page.next {
            Some(next) => after = Some(next),
            None => return Ok(Listed { calls, more: false }),
        }
    }
    Ok(Listed { calls, more: true })
}

fn to_json(calls: &[CallBody], pretty: bool) -> String {
    let text = match pretty {
        true => serde_json::to_string_pretty(calls),
        false => serde_json::to_string(calls),
    };
    text.unwrap_or_default()
}

/// The table a person reads: one line per call, the one waiting longest
/// first, and how many there are.
fn table(listed: &Listed, now: DateTime<Utc>) -> String {
    if listed.calls.is_empty() {
        return "Nothing waits for a decision.\n".to_owned();
    }
    let rows: Vec<[String; 5]> = listed
        .calls
        .iter()
        .map(|call| {
            let mut tool = format!("{}/{}", call.source, call.tool);
            let mut what = call.arguments.to_string();
            // The agent's question reads as one: it takes an answer in the
            // chat or on its page, not an approval here.
            if let Some(question) = asked(call) {
                tool = "question".to_owned();
                what = question.to_owned();
            }
            if call.approvals_required > 1 {
                let given = call.approvals.len();
                tool.push_str(&format!(" ({given} of {})", call.approvals_required));
            }
            [
                call.id.clone(),
                waited(&call.created_at, now),
                tool,
                clip(&what, 48),
                clip(call.conversation_title.as_deref().unwrap_or(""), 32),
            ]
        })
        .collect();
    let header = ["ID", "WAITING", "TOOL", "ARGUMENTS", "CONVERSATION"].map(str::to_owned);
    let mut widths = [0; 5];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    let count = match listed.calls.len() {
        1 => "1 call waits.".to_owned(),
        n => format!("{n} calls wait."),
    };
    out.push_str(&count);
    if listed.more {
        out.push_str(" More wait than these: narrow the list with --source or --tool.");
    }
    out.push('\n');
    out
}

/// How long since `at` (RFC 3339), shortly: `40s`, `12m`, `3h`, `2d`.
pub(super) fn waited(at: &str, now: DateTime<Utc>) -> String {
    let Ok(at) = DateTime::parse_from_rfc3339(at) else {
        return "?".to_owned();
    };
    let seconds = (now - at.with_timezone(&Utc)).num_seconds().max(0);
    match seconds {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// The question, when `call` is the agent asking a person one.
pub(super) fn asked(call: &CallBody) -> Option<&str> {
    let question = call.source == AGENT_SOURCE && call.tool == QUESTION_TOOL;
    question.then(|| call.arguments["question"].as_str().unwrap_or_default())
}

/// `text` cut to `most` characters, with an ellipsis when cut.
fn clip(text: &str, most: usize) -> String {
    match text.chars().count() > most {
        true => format!("{}…", text.chars().take(most - 1).collect::<String>()),
        false => text.to_owned(),
    }
}

#[cfg(test)]
mod tests;
