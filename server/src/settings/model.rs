//! Which model the agent talks to, from `AIRLOCK_MODEL_*`.

use engine::agent::openai::{OpenAiConfig, DEFAULT_MAX_TOKENS};

use super::SettingsError;

/// Which model the agent talks to.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelSettings {
    /// The built-in, rule-based demo model: no key, no network.
    Demo,
    /// An OpenAI-compatible endpoint.
    OpenAi(OpenAiSettings),
}

/// An OpenAI-compatible endpoint.
#[derive(Clone, PartialEq)]
pub struct OpenAiSettings {
    /// `AIRLOCK_MODEL_BASE_URL`, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// `AIRLOCK_MODEL`, e.g. `gpt-4o-mini`.
    pub model: String,
    /// The key, read from the variable `AIRLOCK_MODEL_API_KEY_ENV` names
    /// (default `OPENAI_API_KEY`); local servers need none.
    pub api_key: Option<String>,
    /// `AIRLOCK_MODEL_STREAM` (default `true`): whether replies stream.
    pub stream: bool,
    /// `AIRLOCK_MODEL_MAX_TOKENS` (default 4096; `0` sends none): the
    /// longest reply.
    pub max_tokens: Option<u32>,
    /// `AIRLOCK_MODEL_CONTEXT`: the model's context in tokens; without
    /// it, what the server reports, else 8192.
    pub context: Option<u32>,
}

// The key never reaches a log line.
impl std::fmt::Debug for OpenAiSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiSettings")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set)"))
            .field("stream", &self.stream)
            .field("max_tokens", &self.max_tokens)
            .field("context", &self.context)
            .finish()
    }
}

impl OpenAiSettings {
    /// The provider's configuration.
    pub fn config(&self) -> OpenAiConfig {
        let mut config = OpenAiConfig::new(&self.base_url, &self.model);
        config.api_key = self.api_key.clone();
        config.stream = self.stream;
        config.max_tokens = self.max_tokens;
        config
    }
}

/// A whole number setting, or `None` when unset.
fn number(
    lookup: &impl Fn(&str) -> Option<String>,
    name: &'static str,
) -> Result<Option<u32>, SettingsError> {
    lookup(name)
        .map(|value| {
            value.trim().parse::<u32>().map_err(|_| SettingsError {
                name,
                problem: format!("`{value}` is not a whole number"),
            })
        })
        .transpose()
}

impl ModelSettings {
    pub(super) fn from_lookup(
        lookup: &impl Fn(&str) -> Option<String>,
    ) -> Result<Self, SettingsError> {
        let Some(base_url) = lookup("AIRLOCK_MODEL_BASE_URL") else {
            return Ok(ModelSettings::Demo);
        };
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(SettingsError {
                name: "AIRLOCK_MODEL_BASE_URL",
                problem: format!(
                    "`{base_url}` is not an http(s) address like https://api.openai.com/v1"
                ),
            });
        }
        let model = lookup("AIRLOCK_MODEL").ok_or_else(|| SettingsError {
            name: "AIRLOCK_MODEL",
            problem: "say which model to use (e.g. gpt-4o-mini) when AIRLOCK_MODEL_BASE_URL is set"
                .into(),
        })?;
        let key_env =
            lookup("AIRLOCK_MODEL_API_KEY_ENV").unwrap_or_else(|| "OPENAI_API_KEY".into());
        let stream = match lookup("AIRLOCK_MODEL_STREAM").as_deref() {
            None | Some("true") | Some("1") => true,
            Some("false") | Some("0") => false,
            Some(other) => {
                return Err(SettingsError {
                    name: "AIRLOCK_MODEL_STREAM",
                    problem: format!("`{other}` is not true or false"),
                })
            }
        };
        let max_tokens = match number(lookup, "AIRLOCK_MODEL_MAX_TOKENS")? {
            None => Some(DEFAULT_MAX_TOKENS),
            Some(0) => None,
            Some(n) => Some(n),
        };
        Ok(ModelSettings::OpenAi(OpenAiSettings {
            base_url,
            model,
            api_key: lookup(&key_env),
            stream,
            max_tokens,
            context: number(lookup, "AIRLOCK_MODEL_CONTEXT")?.filter(|n| *n > 0),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(vars: &[(&str, &str)]) -> Result<ModelSettings, SettingsError> {
        ModelSettings::from_lookup(&|name: &str| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn the_model_is_the_demo_unless_an_endpoint_is_set() {
        assert_eq!(from(&[]).unwrap(), ModelSettings::Demo);
        let s = from(&[
            ("AIRLOCK_MODEL_BASE_URL", "http://127.0.0.1:11434/v1"),
            ("AIRLOCK_MODEL", "llama3.1"),
            ("AIRLOCK_MODEL_API_KEY_ENV", "MY_KEY"),
            ("MY_KEY", "sk-secret"),
        ])
        .unwrap();
        assert_eq!(
            s,
            ModelSettings::OpenAi(OpenAiSettings {
                base_url: "http://127.0.0.1:11434/v1".into(),
                model: "llama3.1".into(),
                api_key: Some("sk-secret".into()),
                stream: true,
                max_tokens: Some(DEFAULT_MAX_TOKENS),
                context: None,
            })
        );
        assert!(!format!("{s:?}").contains("sk-secret"));
        let e = from(&[("AIRLOCK_MODEL_BASE_URL", "http://x/v1")]).unwrap_err();
        assert_eq!(e.name, "AIRLOCK_MODEL");
        let e = from(&[("AIRLOCK_MODEL_BASE_URL", "x/v1"), ("AIRLOCK_MODEL", "m")]).unwrap_err();
        assert_eq!(e.name, "AIRLOCK_MODEL_BASE_URL");
    }

    #[test]
    fn the_reply_limit_is_a_number_and_zero_lifts_it() {
        let endpoint = [
            ("AIRLOCK_MODEL_BASE_URL", "http://x/v1"),
            ("AIRLOCK_MODEL", "m"),
        ];
        let with = |extra: (&'static str, &'static str)| {
            let mut vars = endpoint.to_vec();
            vars.push(extra);
            from(&vars)
        };
        let limit = |s: ModelSettings| match s {
            ModelSettings::OpenAi(o) => o.max_tokens,
            ModelSettings::Demo => panic!("an endpoint is set"),
        };
        assert_eq!(
            limit(with(("AIRLOCK_MODEL_MAX_TOKENS", "512")).unwrap()),
            Some(512)
        );
        assert_eq!(
            limit(with(("AIRLOCK_MODEL_MAX_TOKENS", "0")).unwrap()),
            None
        );
        let e = with(("AIRLOCK_MODEL_MAX_TOKENS", "lots")).unwrap_err();
        assert_eq!(e.name, "AIRLOCK_MODEL_MAX_TOKENS");
        assert!(e.problem.contains("`lots`"), "{}", e.problem);
    }
}
