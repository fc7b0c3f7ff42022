//! The shadow policy: a candidate configuration (`shadow_policy: FILE`)
//! that decides every live call beside the real one, is recorded on the
//! call, and is never enforced. Operators watch what a change would do on
//! real traffic before they make it.

use std::sync::Arc;

use super::policy_cases::Expect;
use super::Config;
use crate::domain::ShadowVerdict;
use crate::policy::{CallFacts, PolicyError, PolicyVerdict};

impl Config {
    /// This configuration with `candidate` (read from [`Config::shadow_file`])
    /// as its shadow. A candidate with a shadow of its own is refused:
    /// nothing would ever read it.
    pub fn with_shadow(mut self, file: &str, candidate: Config) -> Result<Self, PolicyError> {
        if candidate.shadow_file.is_some() {
            return Err(PolicyError::new(
                file,
                "shadow_policy",
                "a shadow policy cannot name a shadow policy of its own".to_owned(),
            ));
        }
        self.shadow = Some(Arc::new(candidate));
        Ok(self)
    }

    /// What the shadow policy, when there is one, says of a call of
    /// `source` with `facts`, which the real policy gave `real`.
    pub fn shadow_verdict(
        &self,
        source: &str,
        facts: CallFacts<'_>,
        real: &PolicyVerdict,
    ) -> Option<ShadowVerdict> {
        let candidate = self.shadow.as_ref()?.policy_for(source).decide(facts);
        let verdict = Expect::of(&candidate);
        Some(ShadowVerdict {
            verdict: verdict.as_str().to_owned(),
            reason: candidate.reason,
            differs: verdict != Expect::of(real),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn config(yaml: &str) -> Config {
        Config::parse("/etc/airlock/airlock.yaml", yaml).unwrap()
    }

    #[test]
    fn the_shadow_file_is_read_beside_the_configuration() {
        let real = config("shadow_policy: candidate.yaml\n");
        let file = real.shadow_file.as_deref().unwrap();
        assert_eq!(file, std::path::Path::new("/etc/airlock/candidate.yaml"));
        assert!(config("sources: {}\n").shadow_file.is_none());
    }

    #[test]
    fn the_shadow_decides_beside_the_real_policy_and_says_when_it_differs() {
        let real = config("default_policy:\n  default: allow\n");
        let candidate =
            config("default_policy:\n  default: require_approval\n  tool_blacklist: [wipe]\n");
        let both = real.with_shadow("c.yaml", candidate).unwrap();
        let nothing = json!({});
        let facts = |tool| CallFacts {
            source: "gateway",
            tool,
            arguments: &nothing,
            read_only_hint: false,
            granted: false,
            caller: None,
            at: chrono::DateTime::UNIX_EPOCH,
        };
        let deploy = both.policy_for("gateway").decide(facts("deploy"));
        assert_eq!(Expect::of(&deploy), Expect::Allow);
        let shadow = both
            .shadow_verdict("gateway", facts("deploy"), &deploy)
            .unwrap();
        assert_eq!((shadow.verdict.as_str(), shadow.differs), ("ask", true));
        let wipe = both.policy_for("gateway").decide(facts("wipe"));
        let shadow = both.shadow_verdict("gateway", facts("wipe"), &wipe);
        let shadow = shadow.unwrap();
        assert_eq!((shadow.verdict.as_str(), shadow.differs), ("hidden", true));
        assert!(shadow.reason.contains("wipe"), "{}", shadow.reason);
        let same = config("default_policy:\n  default: allow\n");
        let alike = config("{}\n").with_shadow("c.yaml", same).unwrap();
        let shadow = alike.shadow_verdict("gateway", facts("wipe"), &wipe);
        let shadow = shadow.unwrap();
        assert_eq!((shadow.verdict.as_str(), shadow.differs), ("allow", false));
        let none = config("{}\n").shadow_verdict("gateway", facts("wipe"), &wipe);
        assert!(none.is_none());
    }

    #[test]
    fn a_shadow_of_a_shadow_is_refused() {
        let nested = config("shadow_policy: further.yaml\n");
        let refused = config("{}\n").with_shadow("c.yaml", nested).unwrap_err();
        assert!(refused.to_string().contains("shadow_policy"), "{refused}");
    }
}
