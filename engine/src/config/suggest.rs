//! Candidate configurations the insights page suggests: one rule that
//! allows a tool, put last in its source's block so that no rule written
//! before it (a deny, a condition that asks) is undone, to replay before
//! anyone pastes it into the file.

use std::collections::BTreeMap;

use super::Config;
use crate::policy::{PolicyConfig, PolicyError, RuleAction, RuleConfig};

impl Config {
    /// This configuration with a rule that allows every call of `tool`
    /// last in `source`'s block (its own, else `default_policy`): it wins
    /// over the block's lists and default, never over its rules.
    pub fn allowing(&self, source: &str, tool: &str) -> Result<Config, PolicyError> {
        let mut candidate = self.clone();
        let rule = RuleConfig::new(tool, RuleAction::Allow);
        match candidate.sources.get_mut(source) {
            Some(block) => {
                block.policy_config.rules.push(rule);
                let key = format!("sources.{source}");
                let code = block.policy.code().to_vec();
                block.policy = block
                    .policy_config
                    .compile("(suggested)", &key)?
                    .with_code(code);
            }
            None => {
                let written = &mut candidate.default_policy_config;
                written.rules.push(rule);
                let code = candidate.default_policy.code().to_vec();
                let compiled = written.compile("(suggested)", "default_policy")?;
                candidate.default_policy = compiled.with_code(code);
            }
        }
        Ok(candidate)
    }

    /// The YAML of what [`Config::allowing`] adds. A built-in source's
    /// default block is not in the file, and a block written there
    /// replaces it whole: its YAML is the whole block with the rule, so
    /// that pasting it keeps everything the default did.
    pub fn allowing_yaml(&self, source: &str, tool: &str) -> String {
        if let Some(block) = self.sources.get(source).filter(|b| b.built_in) {
            let mut policy: PolicyConfig = block.policy_config.clone();
            policy.rules.push(RuleConfig::new(tool, RuleAction::Allow));
            let whole = BTreeMap::from([("sources", BTreeMap::from([(source, policy)]))]);
            let yaml = serde_yaml::to_string(&whole).unwrap_or_default();
            return format!("# The built-in block of {source}, with the rule last: a block\n# written in the file replaces the built-in one.\n{yaml}");
        }
        let tool = quoted(tool);
        match self.sources.contains_key(source) {
            true => format!(
                "sources:\n  {}:\n    rules:\n      # after any rules there\n      - tool: {tool}\n        action: allow\n",
                quoted(source)
            ),
            false => {
                format!("default_policy:\n  rules:\n    # after any rules there\n    - tool: {tool}\n      action: allow\n")
            }
        }
    }
}

/// `text` as a YAML string: quoted as JSON, which YAML reads as it is.
pub(super) fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
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
        Expect::of(&config.policy_for(source).decide(CallFacts::new(
            source,
            "send_email",
            &arguments,
        )))
    }

    #[test]
    fn the_suggested_rule_comes_last_and_so_undoes_no_rule() {
        let config = Config::parse("a.yaml", YAML).unwrap();
        assert_eq!(verdict(&config, "mail", "ana@example.com"), Expect::Ask);
        let candidate = config.allowing("mail", "send_email").unwrap();
        assert_eq!(
            verdict(&candidate, "mail", "ana@example.com"),
            Expect::Allow
        );
        // A deny stays a deny.
        assert_eq!(verdict(&config, "mail", "x@rival.example"), Expect::Deny);
        assert_eq!(verdict(&candidate, "mail", "x@rival.example"), Expect::Deny);
        assert_eq!(
            verdict(&candidate, "gateway", "ana@example.com"),
            Expect::Ask
        );
    }

    #[test]
    fn a_built_in_blocks_suggestion_is_the_whole_block_with_the_rule() {
        let mut config = Config::parse("a.yaml", YAML).unwrap();
        crate::tools::demo::configure(&mut config).unwrap();
        let yaml = config.allowing_yaml("demo", "write_file");
        let pasted = Config::parse("b.yaml", &yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        let decide = |config: &Config, tool: &str, path: &str| {
            let arguments = json!({ "path": path });
            Expect::of(
                &config
                    .policy_for("demo")
                    .decide(CallFacts::new("demo", tool, &arguments)),
            )
        };
        let candidate = config.allowing("demo", "write_file").unwrap();
        for config in [&pasted, &candidate] {
            assert_eq!(decide(config, "write_file", "notes.md"), Expect::Allow);
            assert_eq!(decide(config, "write_file", "../outside.md"), Expect::Deny);
            assert_eq!(decide(config, "read_file", "notes.md"), Expect::Allow);
            assert_eq!(decide(config, "list_directory", "."), Expect::Allow);
            assert_eq!(decide(config, "delete_file", "notes.md"), Expect::Ask);
        }
    }

    #[test]
    fn the_suggested_yaml_is_the_rule_in_its_block_and_parses() {
        let config = Config::parse("a.yaml", YAML).unwrap();
        let yaml = config.allowing_yaml("mail", "send_email");
        assert_eq!(
            yaml,
            "sources:\n  \"mail\":\n    rules:\n      # after any rules there\n      - tool: \"send_email\"\n        action: allow\n"
        );
        let unconfigured = config.allowing_yaml("gateway", "deploy");
        assert_eq!(
            unconfigured,
            "default_policy:\n  rules:\n    # after any rules there\n    - tool: \"deploy\"\n      action: allow\n"
        );
        let pasted = Config::parse("b.yaml", &unconfigured).unwrap();
        let candidate = config.allowing("gateway", "deploy").unwrap();
        for config in [&pasted, &candidate] {
            let arguments = json!({});
            let decided = config
                .policy_for("gateway")
                .decide(CallFacts::new("gateway", "deploy", &arguments));
            assert_eq!(Expect::of(&decided), Expect::Allow);
        }
    }
}
