//! `airlock policy check` and `airlock policy test`: a call, or a file of
//! calls with the verdicts they should get, checked against a configuration
//! (`--config`, else `AIRLOCK_CONFIG`, else the embedded defaults) without a
//! server or a database. Grants ("Always allow") live in the database and
//! are not consulted.
//!
//! Exit codes a script can use: `check` gives 0 allow, 1 ask, 2 deny,
//! 3 hidden; `test` gives 0 when every case holds and 1 when one does not;
//! all give 64 when they cannot check at all (a configuration or cases
//! file that does not read, arguments that are not a JSON object). The
//! `replay` of stored calls is in `policy_replay.rs`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use engine::config::policy_cases::{read_cases, CaseFailure, Expect, PolicyCall};
use engine::config::Config;
use engine::domain::{Caller, CallerKind};
use engine::policy::PolicyVerdict;

/// The exit code of a check that could not be made (`EX_USAGE`).
pub const CANNOT_CHECK: u8 = 64;

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// What the policy does with one call: allow (exit 0), ask (1), deny
    /// (2) or hidden (3), and the level or rule that decided.
    Check {
        /// The tool source whose policy block applies.
        #[arg(long)]
        source: String,
        /// The tool's name.
        #[arg(long)]
        tool: String,
        /// The call's arguments, a JSON object.
        #[arg(long, default_value = "{}")]
        args: String,
        /// The tool declares itself read-only (MCP `readOnlyHint`).
        #[arg(long)]
        read_only: bool,
        #[command(flatten)]
        asker: Asker,
        /// The configuration to check against.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Print the verdict as JSON, for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Checks every call of a cases file (a YAML list of `source`, `tool`,
    /// `args`, `expect: allow | ask | deny | hidden`, and an optional
    /// `name`); prints the cases that do not hold, and exits 1 if any.
    Test {
        /// The cases file.
        cases: PathBuf,
        /// The configuration to check against.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Decides every stored call of a window again under a candidate
    /// configuration, and says which would have gone otherwise. Reads the
    /// store the environment names (AIRLOCK_DATA_DIR or
    /// AIRLOCK_DATABASE_URL); changes nothing.
    Replay {
        /// The candidate configuration.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// How far back: `24h`, `7d`.
        #[arg(long, default_value = "7d")]
        since: String,
    },
}

/// Who asks and when, for code policies that read them.
#[derive(Debug, clap::Args)]
pub struct Asker {
    /// The API key the agent asks with (else a caller nothing is known of).
    #[arg(long, value_name = "KEY")]
    agent: Option<String>,
    /// The person the agent acts for (their groups come from `auth.groups`).
    #[arg(long)]
    person: Option<String>,
    /// A group of that person's, instead of `auth.groups` (repeatable).
    #[arg(long = "group", value_name = "GROUP")]
    groups: Vec<String>,
    /// The agent's session.
    #[arg(long)]
    session: Option<String>,
    /// When the call is asked, RFC 3339 (default: now).
    #[arg(long, value_name = "TIME")]
    at: Option<chrono::DateTime<chrono::Utc>>,
}

impl Asker {
    fn caller(self) -> Caller {
        let kind = match self.agent {
            Some(_) => CallerKind::Key,
            None => CallerKind::Local,
        };
        Caller {
            kind,
            name: self.agent.unwrap_or_else(|| "local".to_owned()),
            person: self.person,
            groups: self.groups,
            session: self.session,
        }
    }
}

/// Runs a `policy` command; a failure to check at all is printed, with
/// [`CANNOT_CHECK`].
pub async fn run(command: PolicyCommand) -> ExitCode {
    let ran = match command {
        PolicyCommand::Check {
            source,
            tool,
            args,
            read_only,
            asker,
            config,
            json,
        } => {
            let at = asker.at;
            let call = PolicyCall {
                source,
                tool,
                args: serde_json::Value::Null,
                read_only,
                caller: Some(asker.caller()),
                at,
            };
            check(call, &args, config, json)
        }
        PolicyCommand::Test { cases, config } => test(&cases, config),
        PolicyCommand::Replay { config, since } => match configuration(Some(config)) {
            Ok((candidate, name)) => crate::policy_replay::replay(candidate, name, &since).await,
            Err(e) => Err(e),
        },
    };
    match ran {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("airlock policy: {e:#}");
            ExitCode::from(CANNOT_CHECK)
        }
    }
}

/// The configuration to check against, and what to call it.
pub(crate) fn configuration(file: Option<PathBuf>) -> anyhow::Result<(Config, String)> {
    let path = match file {
        Some(file) => Some(file),
        None => crate::Settings::from_env()?.config_file,
    };
    let name = path.as_ref().map_or_else(
        || "the embedded defaults".to_owned(),
        |p| p.display().to_string(),
    );
    Ok((crate::read_config(path.as_deref())?, name))
}

/// Checks `call`, whose arguments are `args` as given.
fn check(
    mut call: PolicyCall,
    args: &str,
    config: Option<PathBuf>,
    json: bool,
) -> anyhow::Result<u8> {
    let args: serde_json::Value = serde_json::from_str(args)
        .context("--args is not JSON: give an object such as {\"path\": \"a.txt\"}")?;
    anyhow::ensure!(
        args.is_object(),
        "--args must be a JSON object, such as {{\"path\": \"a.txt\"}}"
    );
    let (config, _) = configuration(config)?;
    call.args = args;
    let verdict = config.check(&call);
    let expect = Expect::of(&verdict);
    if json {
        let mut body = serde_json::to_value(&verdict)?;
        body["verdict"] = expect.as_str().into();
        println!("{body}");
    } else {
        print!("{}", described(&call, &verdict));
    }
    Ok(expect.exit_code())
}

/// A verdict for a person: what happens, why, and who decides when it asks.
fn described(call: &PolicyCall, verdict: &PolicyVerdict) -> String {
    let expect = Expect::of(verdict);
    let mut text = format!(
        "{}: {} from {}\n  why: {}\n",
        expect.as_str(),
        call.tool,
        call.source,
        verdict.reason
    );
    if expect == Expect::Ask {
        let who = match verdict.approvers.as_slice() {
            [] => "any approver".to_owned(),
            groups => format!("the groups {}", groups.join(", ")),
        };
        let many = match verdict.approvals_required {
            0 | 1 => String::new(),
            n => format!(", {n} of them"),
        };
        let own = if verdict.separation_of_duties {
            ", not the person who asked"
        } else {
            ""
        };
        text.push_str(&format!("  who decides: {who}{many}{own}\n"));
        if !verdict.notify.is_empty() {
            text.push_str(&format!("  announced on: {}\n", verdict.notify.join(", ")));
        }
        text.push_str(
            "  (an \"Always allow\" grant in force would allow it: grants are not read here)\n",
        );
    }
    text
}

fn test(file: &Path, config: Option<PathBuf>) -> anyhow::Result<u8> {
    let name = file.display().to_string();
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read the cases file {name}"))?;
    let cases = read_cases(&name, &text)?;
    let (config, against) = configuration(config)?;
    let failures = config.failing_cases(&cases);
    for failure in &failures {
        println!("{}", failed(failure));
    }
    println!(
        "{} cases against {against}: {} held, {} did not",
        cases.len(),
        cases.len() - failures.len(),
        failures.len()
    );
    Ok(u8::from(!failures.is_empty()))
}

/// A case that did not hold, in one line.
fn failed(failure: &CaseFailure) -> String {
    let case = &failure.case;
    let named = case
        .name
        .as_deref()
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    format!(
        "FAIL case {}{named}: {} from {}: expected {}, got {} ({})",
        failure.number,
        case.call.tool,
        case.call.source,
        case.expect.as_str(),
        Expect::of(&failure.verdict).as_str(),
        failure.verdict.reason
    )
}
