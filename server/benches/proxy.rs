//! What the MCP proxy adds to an allowed call: `list_directory` on
//! `server-filesystem` (from npm), called by an MCP client over stdio
//! straight to the server, then through `airlock mcp --config` (an Airlock
//! of the client's own, stdio on both sides), through `airlock mcp` (stdio
//! to the client, HTTP to a running Airlock, stdio to the server), and by
//! URL at `/mcp`.
//! Each call through Airlock is decided by policy, recorded, audited and
//! run, as any call is. Prints a table and writes `target/bench/proxy.json`;
//! `make bench` runs it. Target: under 1 ms added at p50.

#[path = "../../engine/benches/common/mod.rs"]
mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

use common::{ms, quantile, write_json};

// The allocator the `airlock` binary uses (see src/main.rs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Calls measured per path, after as many unmeasured ones.
const CALLS: usize = 1_000;

const KEY: &str = "bench-key";

fn files_server() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../end2end/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
        .to_string_lossy()
        .into_owned()
}

fn me() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("bench", "1"),
    )
}

/// Times `CALLS` calls after as many unmeasured ones: sorted latencies.
async fn time(client: &RunningService<RoleClient, ClientConfig>, root: &Path) -> Vec<Duration> {
    let arguments = json!({ "path": root.display().to_string() });
    let request = CallToolRequestParams::new("list_directory")
        .with_arguments(arguments.as_object().unwrap().clone());
    let mut latencies = Vec::with_capacity(CALLS);
    for i in 0..2 * CALLS {
        let started = Instant::now();
        let result = client.call_tool(request.clone()).await.unwrap();
        assert_ne!(result.is_error, Some(true), "{result:?}");
        if i >= CALLS {
            latencies.push(started.elapsed());
        }
    }
    latencies.sort();
    latencies
}

fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("files");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("notes.txt"), "hello").unwrap();
        let root = root.canonicalize().unwrap();
        let config = format!(
            "gateway:\n  api_keys:\n    - name: bench\n      sha256: {}\nsources:\n  files:\n    command: node\n    args: [{:?}, {:?}]\n    auto_approved_tools: [\"list_*\"]\n",
            engine::domain::token::hash_text(KEY),
            files_server(),
            root.display().to_string(),
        );
        let server = support::start(dir.path(), &config, &[], support::Workers::default()).await;
        while !server.engine.proxied_tools().iter().any(|o| o.spec.name == "list_directory") {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }

        let mut direct = tokio::process::Command::new("node");
        direct.arg(files_server()).arg(&root);
        let direct = me().serve(TokioChildProcess::new(direct).unwrap()).await.unwrap();

        let mut piped = tokio::process::Command::new(env!("CARGO_BIN_EXE_airlock"));
        piped
            .arg("mcp")
            .env("AIRLOCK_URL", &server.base)
            .env("AIRLOCK_API_KEY", KEY);
        let piped = me().serve(TokioChildProcess::new(piped).unwrap()).await.unwrap();

        let file = dir.path().join("airlock.yaml");
        std::fs::write(&file, &config).unwrap();
        let mut own = tokio::process::Command::new(env!("CARGO_BIN_EXE_airlock"));
        own.arg("mcp")
            .arg("--config")
            .arg(&file)
            .env("AIRLOCK_ADDR", "127.0.0.1:0")
            .env("AIRLOCK_DATA_DIR", dir.path().join("own"))
            .env("AIRLOCK_LOG", "warn");
        let own = me().serve(TokioChildProcess::new(own).unwrap()).await.unwrap();

        let url = StreamableHttpClientTransportConfig::with_uri(server.url("/mcp")).auth_header(KEY);
        let by_url = me().serve(StreamableHttpClientTransport::from_config(url)).await.unwrap();

        let straight = time(&direct, &root).await;
        let rows = [
            ("straight to the server (stdio)", straight.clone()),
            ("through airlock mcp --config", time(&own, &root).await),
            ("through airlock mcp (stdio)", time(&piped, &root).await),
            ("through /mcp (HTTP)", time(&by_url, &root).await),
        ];
        let base50 = quantile(&straight, 0.5);
        let base99 = quantile(&straight, 0.99);
        println!("an allowed call (list_directory on server-filesystem), {CALLS} calls each");
        println!("{:>32} {:>8} {:>8} {:>12} {:>12}", "path", "p50 ms", "p99 ms", "+p50 ms", "+p99 ms");
        let mut figures = Vec::new();
        for (path, latencies) in &rows {
            let (p50, p99) = (quantile(latencies, 0.5), quantile(latencies, 0.99));
            let added50 = ms(p50) - ms(base50);
            let added99 = ms(p99) - ms(base99);
            println!(
                "{path:>32} {:>8.3} {:>8.3} {:>12.3} {:>12.3}",
                ms(p50),
                ms(p99),
                added50,
                added99
            );
            figures.push(json!({
                "path": path, "p50_ms": ms(p50), "p99_ms": ms(p99),
                "added_p50_ms": added50, "added_p99_ms": added99,
            }));
        }
        write_json("proxy", &json!(figures));
        let _ = direct.cancel().await;
        let _ = piped.cancel().await;
        let _ = own.cancel().await;
        let _ = by_url.cancel().await;
    });
}
