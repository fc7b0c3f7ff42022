//! The model's server, asked at start and then now and again: whether it
//! answers and serves the configured model (said in the log, and while it
//! is down in a banner over the chat), and how large the model's context
//! is, which decides how much history the model is sent.

use std::time::Duration;

use app::state::ModelReach;
use engine::agent::openai::{OpenAiModel, Probe};
use engine::config::{ModelContext, DEFAULT_CONTEXT_TOKENS};
use tokio::sync::watch;

use crate::settings::OpenAiSettings;

/// How often a server that did not answer is asked again.
const WHILE_DOWN: Duration = Duration::from_secs(15);

/// How often a server that answered is asked again.
const WHILE_UP: Duration = Duration::from_secs(120);

/// Asks the server once and says in the log what it found; what it found,
/// for [`context`], and the problem, for the banner.
pub async fn first_look(model: &OpenAiModel, base_url: &str) -> (Option<Probe>, Option<String>) {
    match model.probe().await {
        Ok(probe) => {
            match probe.lists(model.model()) {
                Some(false) => tracing::warn!(
                    %base_url,
                    model = model.model(),
                    listed = ?probe.models.as_deref().unwrap_or_default(),
                    "the model's server does not list the configured model; check AIRLOCK_MODEL"
                ),
                _ => tracing::info!(
                    %base_url,
                    model = model.model(),
                    context = ?probe.context,
                    "the model's server answers"
                ),
            }
            (Some(probe), None)
        }
        Err(e) => {
            tracing::warn!(%base_url, "{e}; the chat says so until it answers");
            (None, Some(banner(&e.to_string())))
        }
    }
}

/// The banner's words for `problem`.
fn banner(problem: &str) -> String {
    let mut letters = problem.chars();
    let first = letters.next().map(|c| c.to_uppercase().to_string());
    format!(
        "{}{}. The agent cannot answer until it can reach its model.",
        first.unwrap_or_default(),
        letters.as_str()
    )
}

/// The model's context: `AIRLOCK_MODEL_CONTEXT`, else what the server
/// said, else a default small enough for most local servers.
pub fn context(settings: &OpenAiSettings, probe: Option<&Probe>) -> ModelContext {
    let tokens = settings
        .context
        .or_else(|| probe.and_then(|p| p.context))
        .unwrap_or(DEFAULT_CONTEXT_TOKENS);
    ModelContext {
        tokens,
        reply_tokens: settings.max_tokens.unwrap_or(0),
    }
}

/// Asks the server again now and then, until `stop`, keeping `reach`
/// current for the banner.
pub async fn keep_asking(model: OpenAiModel, reach: ModelReach, mut stop: watch::Receiver<bool>) {
    loop {
        let wait = if reach.problem().is_some() {
            WHILE_DOWN
        } else {
            WHILE_UP
        };
        tokio::select! {
            _ = stop.changed() => return,
            _ = tokio::time::sleep(wait) => {}
        }
        let now = model.probe().await.err().map(|e| banner(&e.to_string()));
        match (&now, reach.problem()) {
            (None, Some(_)) => tracing::info!("the model's server answers again"),
            (Some(problem), None) => tracing::warn!("{problem}"),
            _ => {}
        }
        reach.set(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_is_the_setting_else_the_server_s_else_the_default() {
        let mut settings = OpenAiSettings {
            base_url: "http://x/v1".into(),
            model: "m".into(),
            api_key: None,
            stream: true,
            max_tokens: Some(1024),
            context: None,
        };
        let reported = Probe {
            models: None,
            context: Some(4096),
        };
        assert_eq!(context(&settings, None).tokens, DEFAULT_CONTEXT_TOKENS);
        assert_eq!(context(&settings, Some(&reported)).tokens, 4096);
        settings.context = Some(32768);
        let set = context(&settings, Some(&reported));
        assert_eq!((set.tokens, set.reply_tokens), (32768, 1024));
        assert_eq!(
            banner("Airlock cannot reach x: connection refused"),
            "Airlock cannot reach x: connection refused. The agent cannot answer until it can reach its model."
        );
    }
}
