//! Test support: real servers that run on Node (aimock, the MCP reference
//! servers, a TLS proxy) start on a free port and say where they listen.

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// Reads `output` (a Node server's stdout or stderr) until a line contains
/// `marker`, within 20 seconds, and returns what follows the marker on that
/// line; then keeps reading it, so the server never blocks on a full pipe.
/// `server` names it in the panic when it exits or hangs first.
pub async fn listening<R>(output: R, marker: &str, server: &str) -> String
where
    R: AsyncRead + Unpin + Send + 'static,
{
    let mut lines = BufReader::new(output).lines();
    let found = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(at) = line.find(marker) {
                return line[at + marker.len()..].trim().to_owned();
            }
        }
        panic!("{server} exited before listening");
    })
    .await
    .unwrap_or_else(|_| panic!("{server} starts within 20 s"));
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    found
}
