//! A minimal HTTP/1.1 client for the load generator: one keep-alive
//! connection per client, each request written whole, each response read by
//! its length.
//!
//! Why not reqwest: the load generator shares the two cores with the server
//! it measures. reqwest hands every request to a connection task through a
//! channel and parses the URL each time; at the gateway benchmark's rate that
//! took about a tenth of the machine, which the server then did not get.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A response: its status and its whole body.
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

/// One keep-alive connection to a server.
pub struct Client {
    stream: TcpStream,
    host: String,
    /// Bytes read past the end of the last response.
    buffer: Vec<u8>,
    /// What every request says it accepts back (`Accept`), as a browser
    /// asking for a page does; nothing by default, as an agent.
    pub accept: Option<&'static str>,
}

impl Client {
    /// Connects to `base` (`http://host:port`).
    pub async fn connect(base: &str) -> Self {
        let host = base
            .strip_prefix("http://")
            .expect("a plain http:// base")
            .trim_end_matches('/')
            .to_owned();
        let stream = TcpStream::connect(&host).await.expect("connect");
        // As the server does: a request is never held back for an ack.
        stream.set_nodelay(true).expect("TCP_NODELAY");
        Self {
            stream,
            host,
            buffer: Vec::with_capacity(8 * 1024),
            accept: None,
        }
    }

    /// Sends `method target` with an optional bearer key and JSON body, and
    /// reads the response.
    pub async fn send(
        &mut self,
        method: &str,
        target: &str,
        bearer: Option<&str>,
        json: Option<&[u8]>,
    ) -> Response {
        let mut request = format!("{method} {target} HTTP/1.1\r\nhost: {}\r\n", self.host);
        if let Some(accept) = self.accept {
            request.push_str(&format!("accept: {accept}\r\n"));
        }
        if let Some(key) = bearer {
            request.push_str(&format!("authorization: Bearer {key}\r\n"));
        }
        let body = json.unwrap_or_default();
        if json.is_some() {
            request.push_str(&format!(
                "content-type: application/json\r\ncontent-length: {}\r\n",
                body.len()
            ));
        }
        request.push_str("\r\n");
        let mut bytes = request.into_bytes();
        bytes.extend_from_slice(body);
        self.stream.write_all(&bytes).await.expect("write request");
        self.read_response().await
    }

    async fn read_response(&mut self) -> Response {
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut parsed = httparse::Response::new(&mut headers);
            if let httparse::Status::Complete(head) =
                parsed.parse(&self.buffer).expect("a valid response head")
            {
                let status = parsed.code.expect("a status");
                let header = |name: &str| {
                    parsed
                        .headers
                        .iter()
                        .find(|h| h.name.eq_ignore_ascii_case(name))
                        .map(|h| String::from_utf8_lossy(h.value).into_owned())
                };
                // A page streams as it renders: chunked.
                if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
                    self.buffer.drain(..head);
                    let body = self.read_chunks().await;
                    return Response { status, body };
                }
                let length: usize = header("content-length").map_or(0, |v| v.parse().unwrap());
                while self.buffer.len() < head + length {
                    self.fill().await;
                }
                let body = self.buffer[head..head + length].to_vec();
                self.buffer.drain(..head + length);
                return Response { status, body };
            }
            self.fill().await;
        }
    }

    /// A chunked body, up to its last (empty) chunk; no trailers.
    async fn read_chunks(&mut self) -> Vec<u8> {
        let mut body = Vec::new();
        loop {
            let line_end = loop {
                match self.buffer.windows(2).position(|w| w == b"\r\n") {
                    Some(at) => break at,
                    None => self.fill().await,
                }
            };
            let size_text = String::from_utf8_lossy(&self.buffer[..line_end]).into_owned();
            let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
                .expect("a chunk size");
            while self.buffer.len() < line_end + 2 + size + 2 {
                self.fill().await;
            }
            body.extend_from_slice(&self.buffer[line_end + 2..line_end + 2 + size]);
            self.buffer.drain(..line_end + 2 + size + 2);
            if size == 0 {
                return body;
            }
        }
    }

    async fn fill(&mut self) {
        let mut chunk = [0_u8; 8 * 1024];
        let n = self.stream.read(&mut chunk).await.expect("read response");
        assert!(n > 0, "the server closed the connection");
        self.buffer.extend_from_slice(&chunk[..n]);
    }
}

/// The path (with query) of `url` on the server; `url` may be absolute.
pub fn path_of(url: &str) -> &str {
    match url.strip_prefix("http://") {
        Some(rest) => &rest[rest.find('/').unwrap_or(rest.len())..],
        None => url,
    }
}

/// Where a case the gateway created is reviewed, answered and polled:
/// paths on the server, read from its 202.
pub struct Case {
    pub review: String,
    pub respond: String,
    pub poll: String,
}

impl Case {
    /// Reads the 202's `hitl` block.
    pub fn from_created(body: &[u8]) -> Self {
        let created: serde_json::Value = serde_json::from_slice(body).expect("a 202 body");
        let hitl = &created["hitl"];
        let text = |key: &str| hitl[key].as_str().expect(key).to_owned();
        let review = path_of(&text("review_url")).to_owned();
        let token = review.split("token=").nth(1).expect("a review token");
        Case {
            respond: format!("/api/v1/reviews/{}/respond?token={token}", text("case_id")),
            review: review.clone(),
            poll: path_of(&text("poll_url")).to_owned(),
        }
    }
}

/// Runs `load` on a thread and a runtime of its own, so that the CPU time it
/// takes can be told apart from the server's in the same process: what it
/// returned, and the CPU seconds its thread used (`None` where the system
/// does not say).
pub fn on_own_thread<T: Send + 'static>(
    load: impl std::future::Future<Output = T> + Send + 'static,
) -> (T, Option<f64>) {
    use crate::common::thread_cpu_seconds;
    std::thread::Builder::new()
        .name("load".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let before = thread_cpu_seconds();
            let returned = runtime.block_on(load);
            let used = before.zip(thread_cpu_seconds()).map(|(b, a)| a - b);
            (returned, used)
        })
        .unwrap()
        .join()
        .unwrap()
}
