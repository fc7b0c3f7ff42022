//! What the model's server says of itself: whether it answers, whether it
//! serves the configured model, and how large that model's context is.
//! Asked once at start, so a wrong address or model name shows in the log
//! before anyone chats, and again while it is down, for the chat's banner.

use std::time::Duration;

use serde_json::Value;

use super::{cause, OpenAiModel};
use crate::agent::model::ModelError;

/// How long the question may take.
const PATIENCE: Duration = Duration::from_secs(5);

/// What the server said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The models it lists, when it lists them (`GET /models`).
    pub models: Option<Vec<String>>,
    /// The configured model's context in tokens, when the server says.
    pub context: Option<u32>,
}

impl Probe {
    /// Whether the server lists the configured `model`; `None` when it
    /// lists nothing (some servers have no `/models`, and serve any name).
    pub fn lists(&self, model: &str) -> Option<bool> {
        self.models
            .as_ref()
            .filter(|m| !m.is_empty())
            .map(|m| m.iter().any(|id| id == model))
    }
}

/// The context a model's entry in `/models` gives: vLLM's `max_model_len`,
/// OpenRouter's and LM Studio's `context_length`, llama.cpp's `meta.n_ctx`
/// (or the model's trained context, `meta.n_ctx_train`, which the server
/// may run below; its `/props` says, and is asked first).
fn context_of(entry: &Value) -> Option<u32> {
    [
        &entry["max_model_len"],
        &entry["context_length"],
        &entry["context_window"],
        &entry["meta"]["n_ctx"],
        &entry["meta"]["n_ctx_train"],
    ]
    .into_iter()
    .find_map(|v| v.as_u64())
    .and_then(|n| u32::try_from(n).ok())
}

impl OpenAiModel {
    async fn get(&self, url: &str) -> Result<reqwest::Response, ModelError> {
        let mut request = self.http.get(url).timeout(PATIENCE);
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key);
        }
        request.send().await.map_err(|e| ModelError::Unreachable {
            url: self.config.base_url.clone(),
            why: cause(&e),
        })
    }

    /// Asks the server about itself; an error when it cannot be reached or
    /// refuses the key.
    pub async fn probe(&self) -> Result<Probe, ModelError> {
        let base = self.config.base_url.trim_end_matches('/');
        let listed = self.get(&format!("{base}/models")).await?;
        match listed.status().as_u16() {
            401 | 403 => return Err(ModelError::Unauthorized),
            _ if !listed.status().is_success() => {
                return Ok(Probe {
                    models: None,
                    context: None,
                })
            }
            _ => {}
        }
        let body: Value = listed.json().await.unwrap_or_default();
        let entries = body["data"].as_array().cloned().unwrap_or_default();
        let models: Vec<String> = entries
            .iter()
            .filter_map(|e| e["id"].as_str().map(str::to_owned))
            .collect();
        let ours = entries
            .iter()
            .find(|e| e["id"].as_str() == Some(self.config.model.as_str()));
        // llama.cpp runs at the context it was started with, which only
        // its `/props`, beside the API root, tells.
        let root = base.trim_end_matches("/v1");
        let running = match self.get(&format!("{root}/props")).await {
            Ok(props) if props.status().is_success() => {
                let props: Value = props.json().await.unwrap_or_default();
                props["default_generation_settings"]["n_ctx"]
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
            }
            _ => None,
        };
        Ok(Probe {
            models: Some(models),
            context: running.or_else(|| ours.and_then(context_of)),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_server_s_word_for_the_context_is_read() {
        assert_eq!(
            context_of(&json!({"id": "m", "max_model_len": 4096})),
            Some(4096)
        );
        assert_eq!(
            context_of(&json!({"id": "m", "context_length": 128000})),
            Some(128000)
        );
        assert_eq!(
            context_of(&json!({"id": "m", "meta": {"n_ctx_train": 32768}})),
            Some(32768)
        );
        assert_eq!(context_of(&json!({"id": "m", "owned_by": "me"})), None);
        let probe = Probe {
            models: Some(vec!["a".into()]),
            context: None,
        };
        assert_eq!(probe.lists("a"), Some(true));
        assert_eq!(probe.lists("b"), Some(false));
        let silent = Probe {
            models: None,
            context: None,
        };
        assert_eq!(silent.lists("a"), None);
    }
}
