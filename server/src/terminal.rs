//! The terminal's commands for people who decide: `airlock pending`,
//! `show`, `approve`, `reject` and `answer`. They act over HTTP (`/api/v1/calls`) as
//! the person of a personal API token, so a decision here is an ordinary
//! decision, recorded on channel `cli`.
//!
//! Exit codes, for scripts: 0 done; 1 refused (not found, not acceptable);
//! 3 someone decided first; 4 the token is missing or refused, or the
//! person may not decide; 69 Airlock could not be reached or failed.

mod client;
mod decide;
mod pending;
mod show;
mod watch;

use std::process::ExitCode;

use clap::Subcommand;

pub use client::{Client, Failure};

/// A request Airlock refused as not found or not acceptable.
pub const REFUSED: u8 = 1;
/// Someone else decided first (or you approved already).
pub const CONFLICT: u8 = 3;
/// No token, a token Airlock refused, or access that does not allow it.
pub const NOT_ALLOWED: u8 = 4;
/// Airlock could not be reached, or failed (`EX_UNAVAILABLE`).
pub const UNAVAILABLE: u8 = 69;

/// The people's commands, at the top level of `airlock`.
#[derive(Debug, Subcommand)]
pub enum TerminalCommand {
    /// List the calls waiting for a decision, the one waiting longest
    /// first. Acts as the person of AIRLOCK_TOKEN at AIRLOCK_URL.
    Pending {
        /// Keep listing them, drawn again as soon as a call comes or is
        /// decided.
        #[arg(long)]
        watch: bool,
        /// Only calls of this tool source.
        #[arg(long)]
        source: Option<String>,
        /// Only calls of this tool.
        #[arg(long)]
        tool: Option<String>,
        /// Print JSON (with --watch, one line each time the list changes).
        #[arg(long)]
        json: bool,
    },
    /// Show one call: its arguments, where it stands, who decided.
    Show {
        /// The call's id, as `airlock pending` lists it.
        id: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Approve a waiting call, as it is or with edited arguments.
    Approve {
        /// The call's id.
        id: String,
        /// Run it with these arguments instead: a JSON object, `@FILE`
        /// for one in a file, or `-` to read it from standard input.
        #[arg(long, value_name = "JSON")]
        edit: Option<String>,
        /// Print the call as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Reject a waiting call; the agent is told the reason.
    Reject {
        /// The call's id.
        id: String,
        /// Why: the agent is told, and the audit records it.
        #[arg(long, value_name = "TEXT")]
        reason: String,
        /// Print the call as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Answer a question the agent asked: in words, or with --action for a
    /// question asked with a type (a choice, a form, a confirmation…).
    Answer {
        /// The question's id, as `airlock pending` lists it.
        id: String,
        /// The answer in words.
        #[arg(required_unless_present = "action", conflicts_with = "action")]
        text: Option<String>,
        /// The action, for a question asked with a type: select, submit,
        /// confirm, cancel, retry, skip, abort, approve or reject.
        #[arg(long)]
        action: Option<String>,
        /// What comes with --action, as a JSON object (`{"selected":
        /// ["b"]}`), `@FILE` for one in a file, or `-` for standard input.
        #[arg(long, value_name = "JSON", requires = "action")]
        data: Option<String>,
        /// Print the call as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `command` against the Airlock the environment names; what went
/// wrong goes to standard error, and the exit code says what kind it was.
pub async fn run(command: TerminalCommand) -> ExitCode {
    let client = Client::from_env();
    let done = match command {
        TerminalCommand::Pending {
            watch,
            source,
            tool,
            json,
        } => {
            let filter = pending::Filter { source, tool };
            match watch {
                true => watch::watch(&client, &filter, json).await,
                false => pending::list(&client, &filter, json).await,
            }
        }
        TerminalCommand::Show { id, json } => show::show(&client, &id, json).await,
        TerminalCommand::Approve { id, edit, json } => {
            decide::approve(&client, &id, edit.as_deref(), json).await
        }
        TerminalCommand::Reject { id, reason, json } => {
            decide::reject(&client, &id, &reason, json).await
        }
        TerminalCommand::Answer {
            id,
            text,
            action,
            data,
            json,
        } => {
            let given = match (text, action) {
                (Some(text), _) => decide::Given::Words(text),
                (None, action) => decide::Given::Action {
                    action: action.unwrap_or_default(),
                    data,
                },
            };
            decide::answer(&client, &id, given, json).await
        }
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("airlock: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}
