//! Candidate configurations the insights page suggests: one rule put first
//! in a source's block, to paste into the file and to replay before that.

use super::Config;
use crate::policy::{PolicyError, RuleAction, RuleConfig};

impl Config {
    /// This configuration with a rule that allows every call of `tool`
    /// first in `source`'s block (its own, else `default_policy`), so it
    /// wins over the block's lists and later rules.
    pub fn allowing_first(&self, source: &str, tool: &str) -> Result<Config, PolicyError> {
        let mut candidate = self.clone();
        let rule = RuleConfig::new(tool, RuleAction::Allow);
        match candidate.sources.get_mut(source) {
            Some(block) => {
                block.policy_config.rules.insert(0, rule);
                let key = format!("sources.{source}");
                block.policy = block.policy_config.compile("(suggested)", &key)?;
            }
            None => {
                let written = &mut candidate.default_policy_config;
                written.rules.insert(0, rule);
                candidate.default_policy = written.compile("(suggested)", "default_policy")?;
            }
        }
        Ok(candidate)
    }

    /// The YAML [`Config::allowing_first`] adds, to paste at the top of
    /// the block's `rules:`.
    pub fn allowing_first_yaml(&self, source: &str, tool: &str) -> String {
        // Quoted as JSON strings, which YAML reads as they are.
        let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
        let tool = quoted(tool);
        match self.sources.contains_key(source) {
            true => format!(
                "sources:\n  {}:\n    rules:\n      - tool: {tool}\n        action: allow\n",
                quoted(source)
            ),
            false => {
                format!("default_policy:\n  rules:\n    - tool: {tool}\n      action: allow\n")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::config::policy_cases::Expect;
    use crate::policy::CallFacts;

    const YAML: &str = "sources:\n  mail:\n    policy_only: true\n    require_approval: [send_email]\n    rules:\n      - tool: send_email\n        when: [{ arg: /to, glob: \"*@rival.example\" }]\n        action: deny\n";

    fn verdict(config: &Config, source: &str, to: &str) -> Expect {
        let arguments = json!({ "to": to });
        Expect::of(&config.policy_for(source).decide(CallFacts {
            tool: "send_email",
            arguments: &arguments,
            read_only_hint: false,
            granted: false,
        }))
    }

    #[test]
    fn the_suggested_rule_comes_first_and_so_wins_over_later_ones() {
        let config = Config::parse("a.yaml", YAML).unwrap();
        assert_eq!(verdict(&config, "mail", "ana@example.com"), Expect::Ask);
        let candidate = config.allowing_first("mail", "send_email").unwrap();
        assert_eq!(
            verdict(&candidate, "mail", "ana@example.com"),
            Expect::Allow
        );
        // What replay must show before anyone pastes it: a deny undone.
        assert_eq!(verdict(&config, "mail", "x@rival.example"), Expect::Deny);
        assert_eq!(
            verdict(&candidate, "mail", "x@rival.example"),
            Expect::Allow
        );
        assert_eq!(
            verdict(&candidate, "gateway", "ana@example.com"),
            Expect::Ask
        );
    }

    #[test]
    fn the_suggested_yaml_is_the_rule_in_its_block_and_parses() {
        let config = Config::parse("a.yaml", YAML).unwrap();
        let yaml = config.allowing_first_yaml("mail", "send_email");
        assert_eq!(
            yaml,
            "sources:\n  \"mail\":\n    rules:\n      - tool: \"send_email\"\n        action: allow\n"
        );
        let unconfigured = config.allowing_first_yaml("gateway", "deploy");
        assert_eq!(
            unconfigured,
            "default_policy:\n  rules:\n    - tool: \"deploy\"\n      action: allow\n"
        );
        let pasted = Config::parse("b.yaml", &unconfigured).unwrap();
        let candidate = config.allowing_first("gateway", "deploy").unwrap();
        for config in [&pasted, &candidate] {
            let arguments = json!({});
            let decided = config.policy_for("gateway").decide(CallFacts {
                tool: "deploy",
                arguments: &arguments,
                read_only_hint: false,
                granted: false,
            });
            assert_eq!(Expect::of(&decided), Expect::Allow);
        }
    }
}
