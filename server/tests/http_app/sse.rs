//! Server-sent events as the HTTP tests read them: each event, and a
//! reader that follows a stream and rebuilds the reply being written.

use super::TestApp;

#[derive(Debug, Clone)]
pub struct Sse {
    pub event: String,
    pub id: String,
    pub data: serde_json::Value,
}

/// Reads server-sent events from a streaming response.
pub struct SseReader {
    pub response: reqwest::Response,
    pub buffer: String,
    /// Draft pieces (`message.delta`), each with how many stored events came before it.
    pub drafts: Vec<(usize, String)>,
    /// The rendered reply so far, as pieces ending a line rebuild it.
    pub rendered: Vec<String>,
    /// The bytes of HTML those pieces carried.
    pub html_sent: usize,
}

impl SseReader {
    pub async fn open(app: &TestApp, path: &str, last_event_id: Option<&str>) -> Self {
        let mut request = app.client.get(format!("{}{path}", app.base));
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Self {
            response,
            buffer: String::new(),
            drafts: Vec::new(),
            rendered: Vec::new(),
            html_sent: 0,
        }
    }

    pub async fn next(&mut self) -> Sse {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| {
                    block
                        .lines()
                        .find_map(|l| l.strip_prefix(name).map(|v| v.trim_start().to_owned()))
                        .unwrap_or_default()
                };
                if block.lines().all(|l| l.starts_with(':') || l.is_empty()) {
                    continue; // a keep-alive comment
                }
                return Sse {
                    event: field("event:"),
                    id: field("id:"),
                    data: serde_json::from_str(&field("data:")).unwrap(),
                };
            }
            let chunk =
                tokio::time::timeout(std::time::Duration::from_secs(5), self.response.chunk())
                    .await
                    .expect("an event within 5 s")
                    .unwrap()
                    .unwrap_or_else(|| panic!("the stream closed; unread: {:?}", self.buffer));
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}

impl SseReader {
    /// Reads events until the agent's run is over, and returns them.
    pub async fn until_run_done(&mut self) -> Vec<Sse> {
        let mut seen = Vec::new();
        loop {
            let event = self.next().await;
            if event.event == "message.delta" {
                assert!(event.id.is_empty(), "drafts carry no id");
                let text = event.data["text"].as_str().unwrap().to_owned();
                let ends_line = text.contains('\n');
                self.drafts.push((seen.len(), text));
                match event.data["html"].as_str() {
                    Some(html) => {
                        // What follows the part of the last rendering it keeps.
                        let keep = event.data["keep"].as_u64().unwrap() as usize;
                        let last = self.rendered.last().map_or("", String::as_str);
                        self.rendered.push(format!("{}{html}", &last[..keep]));
                        self.html_sent += html.len();
                    }
                    None => assert!(!ends_line, "a piece that ends a line carries html"),
                }
                continue;
            }
            // Pieces of calls being written: shown, never stored.
            if event.event == "call.delta" {
                assert!(event.id.is_empty(), "drafts carry no id");
                continue;
            }
            let done = event.event == "run.updated" && event.data["status"] == "done";
            seen.push(event);
            if done {
                return seen;
            }
        }
    }
}

pub fn kinds(events: &[Sse]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e.event.as_str() {
            "run.updated" => format!("run {}", e.data["status"].as_str().unwrap()),
            "tool_call.created" | "tool_call.updated" => {
                format!(
                    "{} {}",
                    e.data["tool"].as_str().unwrap(),
                    e.data["status"].as_str().unwrap()
                )
            }
            "message.created" => format!("{} message", e.data["role"].as_str().unwrap()),
            "conversation.updated" => format!("title {}", e.data["title"].as_str().unwrap()),
            other => other.to_owned(),
        })
        .collect()
}

pub fn assert_contiguous(events: &[Sse], first: i64) {
    let ids: Vec<i64> = events.iter().map(|e| e.id.parse().unwrap()).collect();
    let expected: Vec<i64> = (first..first + ids.len() as i64).collect();
    assert_eq!(ids, expected, "event ids run without gaps");
}
