//! A block that is a remote A2A agent: `a2a:` names its card, `headers:`
//! what every request to it carries. A header's value may take secrets from
//! Airlock's environment as `${VAR}`, read once at start; a variable that
//! is not set stops the start, naming it, rather than sending a header
//! without its secret.

use std::collections::BTreeMap;

use super::Connection;
use crate::policy::PolicyError;

/// The connection of the agent block at `key`, or the key whose word does
/// not fit; `mcp_keys` are the block's MCP connection keys, each with
/// whether it was given.
pub(super) fn connection(
    file: &str,
    key: &str,
    card: String,
    headers: Option<BTreeMap<String, String>>,
    mcp_keys: &[(&str, bool)],
) -> Result<Connection, PolicyError> {
    let err = |below: &str, problem: String| {
        Err(PolicyError::new(file, format!("{key}.{below}"), problem))
    };
    if let Some((other, _)) = mcp_keys.iter().find(|(_, given)| *given) {
        return err(
            other,
            format!("`{other}` is for an MCP server; this block is a remote agent (`a2a`)"),
        );
    }
    let web = card.starts_with("http://") || card.starts_with("https://");
    if !web || card.len() > 2000 {
        return err(
            "a2a",
            "the agent's card is an http(s) URL: the card's own, or the agent's base URL".into(),
        );
    }
    let mut read = BTreeMap::new();
    for (name, value) in headers.unwrap_or_default() {
        let valid = reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_ok();
        if !valid {
            return err("headers", format!("`{name}` is not a header name"));
        }
        let value = match expand(&value) {
            Ok(value) => value,
            Err(problem) => return err(&format!("headers.{name}"), problem),
        };
        if reqwest::header::HeaderValue::from_str(&value).is_err() {
            let problem = "the value is not one a header can carry (a line break?)";
            return err(&format!("headers.{name}"), problem.into());
        }
        read.insert(name, value);
    }
    Ok(Connection::Agent {
        card,
        headers: read,
    })
}

/// `value` with each `${VAR}` replaced by the variable's value.
fn expand(value: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err("a `${` without its `}`".into());
        };
        let name = &after[..end];
        match std::env::var(name) {
            Ok(found) if !found.is_empty() => out.push_str(&found),
            _ => return Err(format!("${{{name}}} is not set in Airlock's environment")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, Connection};

    fn read(block: &str) -> Result<Connection, String> {
        let text = format!("sources:\n  k8s:\n{block}");
        let config = Config::parse("airlock.yaml", &text).map_err(|e| e.to_string())?;
        Ok(config.sources["k8s"].connection.clone())
    }

    #[test]
    fn an_agent_block_names_its_card_and_reads_secrets_from_the_environment() {
        let home = std::env::var("HOME").unwrap();
        let block = "    a2a: https://kagent.example/api/a2a/kagent/k8s/\n    headers:\n      Authorization: Bearer ${HOME}\n      X-User-Id: admin\n    require_approval: [k8s_delete_resource]\n";
        let Connection::Agent { card, headers } = read(block).unwrap() else {
            panic!("an agent");
        };
        assert_eq!(card, "https://kagent.example/api/a2a/kagent/k8s/");
        assert_eq!(headers["Authorization"], format!("Bearer {home}"));
        assert_eq!(headers["X-User-Id"], "admin");
    }

    #[test]
    fn what_does_not_fit_an_agent_is_refused_by_its_key() {
        let unset = "    a2a: https://a.example\n    headers:\n      Authorization: Bearer ${AIRLOCK_NO_SUCH_SECRET}\n";
        let refused = read(unset).unwrap_err();
        assert!(
            refused.contains("sources.k8s.headers.Authorization"),
            "{refused}"
        );
        assert!(
            refused.contains("${AIRLOCK_NO_SUCH_SECRET} is not set"),
            "{refused}"
        );
        let both =
            read("    a2a: https://a.example\n    url: https://b.example/mcp\n").unwrap_err();
        assert!(
            both.contains("sources.k8s.url") && both.contains("remote agent"),
            "{both}"
        );
        let not_web = read("    a2a: kagent/k8s\n").unwrap_err();
        assert!(not_web.contains("http(s) URL"), "{not_web}");
        let stray = read("    url: https://b.example/mcp\n    headers: {X: y}\n").unwrap_err();
        assert!(stray.contains("sources.k8s.headers"), "{stray}");
    }
}
