//! The crash test's workload: chat conversations, gateway cases and an
//! inbox client, spread over the servers, each writing what it was told in
//! the ledger.

use super::*;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::{json, Value};

/// The clients, spread over the servers' addresses.
pub struct Workload {
    pub bases: Vec<String>,
    /// The servers' logs, shown when one answers with a server error.
    pub logs: Vec<PathBuf>,
    pub ledger: Shared,
    pub stop: Arc<AtomicBool>,
    pub counter: Arc<AtomicUsize>,
}

impl Workload {
    pub fn base(&self, n: usize) -> &str {
        &self.bases[n % self.bases.len()]
    }

    pub fn server_logs(&self) -> String {
        self.logs
            .iter()
            .map(|log| std::fs::read_to_string(log).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n---\n")
    }

    pub fn broken(&self) {
        self.ledger.lock().unwrap().broken += 1;
    }

    /// Records a decision's answer; `calls` are the ids it decided.
    pub fn decided(&self, status: u16, calls: &[String], approve: bool) {
        let mut ledger = self.ledger.lock().unwrap();
        match status {
            200 => {
                for call in calls {
                    ledger.accepted.insert(call.clone(), approve);
                }
            }
            409 => ledger.conflicts += 1,
            // 410: the call's deadline passed first (nobody may approve it
            // then, even before the expiry pass), which the checks cover.
            410 => {}
            other => panic!("a decision was answered with {other}"),
        }
    }

    pub async fn post_fn(
        &self,
        client: &reqwest::Client,
        n: usize,
        name: &str,
        form: &[(&str, &str)],
    ) -> Option<(u16, Value)> {
        let res = client
            .post(format!("{}/api/fn/{name}", self.base(n)))
            .header("accept", "application/json")
            .form(form)
            .send()
            .await
            .ok()?;
        let status = res.status().as_u16();
        let body = res.json().await.ok()?;
        assert!(
            status < 500,
            "{name} answered {status}: {body}\n{}",
            self.server_logs()
        );
        Some((status, body))
    }

    /// A person in the chat: asks for two e-mails, then decides.
    pub async fn chat(self: Arc<Self>) {
        let client = workload_client();
        while !self.stop.load(Ordering::Relaxed) {
            let n = self.counter.fetch_add(1, Ordering::Relaxed);
            let Some((200, id)) = self.post_fn(&client, n, "create_conversation", &[]).await else {
                self.broken();
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let id = id.as_str().unwrap().to_owned();
            self.ledger.lock().unwrap().conversations.push(id.clone());
            let text = format!("email a{n}@crash.test and b{n}@crash.test: note {n}");
            if self
                .post_fn(
                    &client,
                    n,
                    "post_message",
                    &[("conversation_id", &id), ("content", &text)],
                )
                .await
                .is_none()
            {
                self.broken();
                continue;
            }
            let Some(calls) = self.pending_calls(&client, n, &id).await else {
                continue;
            };
            match n % 5 {
                0 => {
                    if let Some((status, body)) = self
                        .post_fn(&client, n, "approve_all", &[("conversation_id", &id)])
                        .await
                    {
                        let ids = ids_of(&body);
                        self.decided(status, &ids, true);
                    } else {
                        self.broken();
                    }
                }
                1 | 2 => {
                    for (i, call) in calls.iter().enumerate() {
                        let approve = n % 5 == 1 || i == 1;
                        let (name, form) = if approve {
                            ("approve_call", vec![("call_id", call.as_str())])
                        } else {
                            (
                                "reject_call",
                                vec![("call_id", call.as_str()), ("reason", "not now")],
                            )
                        };
                        match self.post_fn(&client, n, name, &form).await {
                            Some((status, _)) => {
                                self.decided(status, std::slice::from_ref(call), approve)
                            }
                            None => self.broken(),
                        }
                    }
                }
                3 => match self
                    .post_fn(
                        &client,
                        n,
                        "reject_all",
                        &[("conversation_id", &id), ("reason", "no")],
                    )
                    .await
                {
                    Some((status, body)) => self.decided(status, &ids_of(&body), false),
                    None => self.broken(),
                },
                // Left for expiry (or the inbox client).
                _ => {}
            }
        }
    }

    /// The ids of the conversation's calls once they wait for approval.
    pub async fn pending_calls(
        &self,
        client: &reqwest::Client,
        n: usize,
        id: &str,
    ) -> Option<Vec<String>> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(2) {
            let res = client
                .get(format!("{}/api/fn/get_conversation", self.base(n)))
                .query(&[("id", id)])
                .header("accept", "application/json")
                .send()
                .await;
            if let Ok(res) = res {
                if let Ok(body) = res.json::<Value>().await {
                    let calls: Vec<String> = body["tool_calls"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|c| c["status"] == "pending_approval")
                        .map(|c| c["id"].as_str().unwrap().to_owned())
                        .collect();
                    if calls.len() == 2 {
                        return Some(calls);
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        None
    }

    /// An agent over the HITL gateway: asks, and answers through the link.
    pub async fn gateway(self: Arc<Self>) {
        let client = workload_client();
        while !self.stop.load(Ordering::Relaxed) {
            let n = self.counter.fetch_add(1, Ordering::Relaxed);
            let res = client
                .post(format!("{}/api/v1/tool-calls", self.base(n)))
                .bearer_auth(KEY)
                .json(&json!({"tool": "delete_file", "arguments": {"path": format!("g{n}")}, "source": "filesystem", "session_id": format!("crash-{}", n % 4)}))
                .send()
                .await;
            let Some(body) = (match res {
                Ok(res) if res.status() == 202 => res.json::<Value>().await.ok(),
                Ok(res) => panic!("the gateway answered {}", res.status()),
                Err(_) => None,
            }) else {
                self.broken();
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let hitl = &body["hitl"];
            let call = hitl["context"]["call_id"].as_str().unwrap().to_owned();
            self.ledger.lock().unwrap().gateway_calls.push(call.clone());
            if n % 3 == 2 {
                continue; // left to expire
            }
            let approve = n.is_multiple_of(3);
            let (case, token) = support::review_link(hitl);
            let res = client
                .post(format!(
                    "{}/api/v1/reviews/{case}/respond",
                    self.base(n + 1)
                ))
                .query(&[("token", token.as_str())])
                .json(&json!({"action": if approve { "approve" } else { "reject" }, "data": {}}))
                .send()
                .await;
            match res {
                // 410: the case expired first, which the checks cover.
                Ok(res) if res.status() == 410 => {}
                Ok(res) => {
                    let status = res.status().as_u16();
                    let body = res.text().await.unwrap_or_default();
                    assert!(
                        status < 500,
                        "respond answered {status}: {body}\n{}",
                        self.server_logs()
                    );
                    self.decided(status, &[call], approve)
                }
                Err(_) => self.broken(),
            }
        }
    }

    /// Another person in the inbox, deciding whatever waits.
    pub async fn inbox(self: Arc<Self>) {
        let client = workload_client();
        while !self.stop.load(Ordering::Relaxed) {
            let n = self.counter.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(150)).await;
            let Ok(res) = client
                .get(format!("{}/api/fn/list_approvals", self.base(n)))
                .header("accept", "application/json")
                .send()
                .await
            else {
                self.broken();
                continue;
            };
            let Ok(inbox) = res.json::<Value>().await else {
                continue;
            };
            let items = inbox["items"].as_array().cloned().unwrap_or_default();
            if items.is_empty() {
                continue;
            }
            let pick = &items[rand::thread_rng().gen_range(0..items.len())];
            let call = pick["call"]["id"].as_str().unwrap().to_owned();
            let approve = n.is_multiple_of(2);
            let form = if approve {
                vec![("call_id", call.as_str())]
            } else {
                vec![("call_id", call.as_str()), ("reason", "inbox")]
            };
            let name = if approve {
                "approve_call"
            } else {
                "reject_call"
            };
            match self.post_fn(&client, n, name, &form).await {
                Some((status, _)) => self.decided(status, &[call], approve),
                None => self.broken(),
            }
        }
    }
}

pub fn ids_of(calls: &Value) -> Vec<String> {
    calls
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

/// A client of the workload. Its requests give up after a while, as a
/// person's browser would: a request that never gets an answer counts as
/// cut by a kill instead of holding the test forever. (Once, after a run of
/// 50 kills, a client waited for ever with no connection open and both
/// servers idle and settled.)
pub fn workload_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}
