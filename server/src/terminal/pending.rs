//! `airlock pending`: the calls waiting for a decision, as a table for
//! people or JSON for scripts.

use chrono::{DateTime, Utc};

use engine::domain::{AGENT_SOURCE, QUESTION_TOOL};

use super::{Client, Failure};
use crate::calls_api::{CallBody, PendingPage};

/// Which waiting calls to list.
#[derive(Debug, Default)]
pub struct Filter {
    pub source: Option<String>,
    pub tool: Option<String>,
}

/// What one listing found.
#[derive(Debug)]
pub(super) struct Listed {
    pub calls: Vec<CallBody>,
    /// More wait than the pages read hold.
    pub more: bool,
}

/// At most so many pages (of 100 calls) are read for one listing.
const MOST_PAGES: usize = 10;

/// Lists the waiting calls once.
pub async fn list(client: &Client, filter: &Filter, json: bool) -> Result<(), Failure> {
    let listed = fetch(client, filter).await?;
    match json {
        true => println!("{}", to_json(&listed.calls, true)),
        false => print!("{}", table(&listed, Utc::now())),
    }
    Ok(())
}

pub(super) async fn fetch(client: &Client, filter: &Filter) -> Result<Listed, Failure> {
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

pub(super) fn to_json(calls: &[CallBody], pretty: bool) -> String {
    let text = match pretty {
        true => serde_json::to_string_pretty(calls),
        false => serde_json::to_string(calls),
    };
    text.unwrap_or_default()
}

/// The table a person reads: one line per call, the one waiting longest
/// first, and how many there are.
pub(super) fn table(listed: &Listed, now: DateTime<Utc>) -> String {
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
