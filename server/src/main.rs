//! The `airlock` command: `airlock serve` (the default) starts the server:
//! tracing, settings, then `launch` with graceful shutdown.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use engine::domain::Access;
use server::people_cli::AddUser;

// Serving a request allocates and frees many small buffers across threads,
// which glibc's allocator does slowly (a tenth of the gateway's CPU time).
// The allocator holds no state of ours.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Airlock: a human approval layer for AI agents' tool calls. Settings come
/// from AIRLOCK_* environment variables (see docs/configuration.md).
#[derive(Debug, Parser)]
#[command(name = "airlock", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the web app, the HITL API and the agent (the default).
    Serve,
    /// Manage the people who sign in.
    #[command(subcommand)]
    User(UserCommand),
    /// Check the audit log.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Check a decision's receipt, as a service downstream would.
    #[command(subcommand)]
    Receipt(ReceiptCommand),
    /// Manage the keys receipts are signed with.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Decide an agent's tool calls from the agent's own hooks.
    #[command(subcommand)]
    Hook(HookCommand),
    #[command(flatten)]
    People(server::terminal::TerminalCommand),
    /// Check what the policy does with a call, or with a file of calls,
    /// without a server.
    #[command(subcommand)]
    Policy(server::policy_cli::PolicyCommand),
    /// Print the configuration that gives another product's approvals.
    #[command(subcommand)]
    Import(ImportCommand),
    /// An MCP server over stdio for a client that starts its servers as
    /// programs: it offers a running Airlock's MCP tools (AIRLOCK_URL, with
    /// a gateway key in AIRLOCK_API_KEY), each call decided there.
    Mcp {
        /// Be that Airlock instead, with this configuration file: run its
        /// sources here and serve the pages where people decide (at
        /// AIRLOCK_ADDR) while the client runs this.
        #[arg(long, value_name = "FILE")]
        config: Option<std::path::PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum ImportCommand {
    /// Reads kagent Agent resources (YAML, with the MCP servers they name
    /// when the file holds them) and prints the sources and policy that
    /// ask for the same approvals: `tools` from `toolNames`,
    /// `require_approval` from `requireApproval`.
    Kagent {
        /// The file of resources (`-`: standard input).
        file: std::path::PathBuf,
    },
}

#[derive(Debug, Subcommand)]
enum HookCommand {
    /// Claude Code's PreToolUse hook: reads the call from standard input,
    /// asks Airlock (AIRLOCK_URL, with the gateway key in AIRLOCK_API_KEY)
    /// and prints the decision; see docs/integrations.md.
    ClaudeCode {
        /// The policy block that decides the calls.
        #[arg(long, default_value = "claude-code")]
        source: String,
        /// How long a call may wait for a person (`90s`, `9m`); keep it
        /// under the hook's `timeout` in Claude Code's settings.
        #[arg(long, default_value = "9m")]
        wait: String,
        /// When Airlock cannot be asked: `deny` the call, or `ask` the
        /// person at the terminal through Claude Code's own prompt.
        #[arg(long, value_parser = ["deny", "ask"], default_value = "deny")]
        unreachable: String,
    },
}

#[derive(Debug, Subcommand)]
enum AuditCommand {
    /// Check that no entry of the audit chain was changed, removed or
    /// moved, in the database or in an exported file; names the first
    /// broken entry and exits with 1 when one is.
    Verify {
        /// An export of `GET /api/v1/audit` (JSON Lines) to check instead
        /// of the database.
        #[arg(long)]
        file: Option<std::path::PathBuf>,
        /// A head printed by `airlock audit head` earlier (SEQ:HASH): the
        /// chain must still reach it, or entries were removed from its end.
        #[arg(long)]
        head: Option<engine::domain::KeptHead>,
    },
    /// Print the chain's head (SEQ:HASH) to keep outside Airlock, for
    /// `verify --head` to check later.
    Head,
}

#[derive(Debug, Subcommand)]
enum ReceiptCommand {
    /// Check a receipt (`result.signature.value` of a HITL poll) against
    /// the key set, and that it is for these arguments; exits with 1 when
    /// it is refused.
    Verify {
        /// The receipt: a compact JWS.
        receipt: String,
        /// The arguments about to be acted on, as JSON: the receipt must be
        /// for exactly these.
        #[arg(long = "args", value_name = "JSON")]
        arguments: Option<String>,
        /// The key set: a JWKS file, or its address (by default
        /// AIRLOCK_URL's `/.well-known/jwks.json`).
        #[arg(long, value_name = "FILE_OR_URL")]
        keys: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Make a new receipt key, which signs from now on; the old keys stay
    /// in the key set, so what they signed still verifies.
    Rotate,
}

#[derive(Debug, Subcommand)]
enum UserCommand {
    /// Add a person; the password is asked for on the terminal, or read
    /// from standard input when that is not a terminal.
    Add {
        /// What they sign in with: lowercase letters, digits, `.`, `_`, `-`.
        name: String,
        /// How they are shown (their name when left out).
        #[arg(long)]
        display_name: Option<String>,
        /// Make them an administrator.
        #[arg(long, conflicts_with = "access")]
        admin: bool,
        /// What they may do: approver (the default) or viewer.
        #[arg(long, value_parser = ["approver", "viewer"])]
        access: Option<String>,
        /// Their e-mail address: how Slack's buttons know who pressed them.
        #[arg(long)]
        email: Option<String>,
    },
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // A mistyped command exits 64 (`EX_USAGE`), not clap's 2, which
        // `airlock policy check` gives a denied call.
        Err(e) => {
            let _ = e.print();
            return match e.use_stderr() {
                true => ExitCode::from(server::policy_cli::CANNOT_CHECK),
                false => ExitCode::SUCCESS,
            };
        }
    };
    match run(cli.command.unwrap_or(Command::Serve)).await {
        Ok(code) => code,
        // One line, with its causes: a refusal to start is the operator's
        // to read, and a backtrace (RUST_BACKTRACE=1) says nothing to them.
        Err(e) => {
            eprintln!("Error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// A command that ran to its end.
fn done(_: ()) -> ExitCode {
    ExitCode::SUCCESS
}

async fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Policy(command) => Ok(server::policy_cli::run(command).await),
        Command::Import(ImportCommand::Kagent { file }) => Ok(server::import_cli::kagent(&file)),
        Command::People(command) => Ok(server::terminal::run(command).await),
        Command::Serve => serve().await.map(done),
        Command::User(UserCommand::Add {
            name,
            display_name,
            admin,
            access,
            email,
        }) => {
            let access = match (admin, access.as_deref()) {
                (true, _) => Access::Admin,
                (false, Some("viewer")) => Access::Viewer,
                _ => Access::Approver,
            };
            let request = AddUser {
                name,
                display_name,
                access,
                email,
            };
            server::people_cli::add_user(&server::Settings::from_env()?, request)
                .await
                .map(done)
        }
        Command::Audit(AuditCommand::Verify {
            file: Some(file),
            head,
        }) => server::audit_cli::verify_file(&file, head).map(done),
        Command::Audit(AuditCommand::Verify { file: None, head }) => {
            server::audit_cli::verify_database(&server::Settings::from_env()?, head)
                .await
                .map(done)
        }
        Command::Audit(AuditCommand::Head) => {
            server::audit_cli::print_head(&server::Settings::from_env()?)
                .await
                .map(done)
        }
        Command::Receipt(ReceiptCommand::Verify {
            receipt,
            arguments,
            keys,
        }) => {
            let keys =
                keys.unwrap_or_else(|| format!("{}/.well-known/jwks.json", airlock_address().0));
            let keys = server::receipt_cli::Keys::parse(&keys);
            server::receipt_cli::verify(&receipt, arguments.as_deref(), &keys).await
        }
        Command::Keys(KeysCommand::Rotate) => {
            server::receipt_cli::rotate(&server::Settings::from_env()?)
                .await
                .map(done)
        }
        Command::Mcp { config: None } => {
            let (url, key) = airlock_address();
            let served = server::mcp_stdio::serve(url, key, shutdown_signal());
            logged(std::io::stderr, served).await.map(done)
        }
        Command::Mcp { config: Some(file) } => {
            let served = async {
                let mut settings = server::Settings::from_env()?;
                settings.config_file = Some(file);
                server::mcp_stdio::serve_here(settings, shutdown_signal()).await
            };
            logged(std::io::stderr, served).await.map(done)
        }
        Command::Hook(HookCommand::ClaudeCode {
            source,
            wait,
            unreachable,
        }) => {
            let wait = match engine::policy::duration::parse_expiry(&wait) {
                Ok(Some(wait)) => wait,
                _ => anyhow::bail!("--wait {wait}: give a duration such as 90s or 9m"),
            };
            let (url, key) = airlock_address();
            let settings = server::hook::HookSettings {
                url,
                key,
                source,
                wait,
                unreachable: match unreachable.as_str() {
                    "ask" => server::hook::Unreachable::Ask,
                    _ => server::hook::Unreachable::Deny,
                },
            };
            server::hook::answer_from_stdin(&settings).await.map(done)
        }
    }
}

/// Where a running Airlock listens (`AIRLOCK_URL`, by default this
/// machine's port 3000) and the gateway key to ask it with
/// (`AIRLOCK_API_KEY`), for the commands that ask it.
fn airlock_address() -> (String, String) {
    let url = std::env::var("AIRLOCK_URL").unwrap_or_else(|_| "http://127.0.0.1:3000".to_owned());
    (url, std::env::var("AIRLOCK_API_KEY").unwrap_or_default())
}

/// Runs `work` with the log (and traces, with a collector) on `out`, and
/// sends the last spans before returning.
async fn logged<W, T>(
    out: W,
    work: impl std::future::Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<T>
where
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    let log = server::telemetry::LogSettings::from_env()?;
    let telemetry = server::telemetry::init(out, &log);
    let done = work.await;
    telemetry.shutdown();
    done
}

async fn serve() -> anyhow::Result<()> {
    let served = async {
        let settings = server::Settings::from_env()?;
        let listener = tokio::net::TcpListener::bind(settings.addr)
            .await
            .with_context(|| format!("cannot listen on {}", settings.addr))?;
        server::launch(settings, listener, shutdown_signal()).await
    };
    logged(std::io::stdout, served).await
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
