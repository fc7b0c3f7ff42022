//! Replaying stored calls under another configuration (`airlock policy
//! replay`): each call decided again on the facts it was decided on (its
//! source, tool and arguments as proposed, a grant in force, a read-only
//! hint), and compared with what its policy did then.

use std::collections::BTreeMap;

use super::policy_cases::Expect;
use super::Config;
use crate::domain::{CallStatus, ToolCall};
use crate::policy::{facts_in_reason, CallFacts};

/// What the policy did with a stored call, read from the call: a decision
/// or a wait means it asked; a refusal without one, that it denied (or hid
/// the tool); anything else, that it allowed. `None` for the agent's
/// questions, which no policy decides.
pub fn what_happened(call: &ToolCall) -> Option<Expect> {
    if call.is_question() {
        return None;
    }
    Some(
        match (
            &call.decision,
            call.status,
            call.policy_reason.starts_with("hidden:"),
        ) {
            (Some(_), _, _) | (None, CallStatus::PendingApproval, _) => Expect::Ask,
            (None, CallStatus::Rejected, true) => Expect::Hidden,
            (None, CallStatus::Rejected, false) => Expect::Deny,
            (None, _, _) => Expect::Allow,
        },
    )
}

/// A call the candidate configuration decides otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    pub was: Expect,
    pub now: Expect,
    /// Why, under the candidate.
    pub reason: String,
}

/// What replaying a window of calls found: how many were replayed, and
/// each change of verdict with its count and its first few calls.
#[derive(Debug, Default)]
pub struct ReplayReport {
    pub replayed: usize,
    pub changes: BTreeMap<(&'static str, &'static str), Change>,
}

/// The calls whose verdict went from one to another.
#[derive(Debug, Default)]
pub struct Change {
    pub count: usize,
    /// The first [`EXAMPLES`] of them: the call and why it changed.
    pub examples: Vec<(ToolCall, String)>,
}

/// How many calls of each change a report keeps.
pub const EXAMPLES: usize = 3;

impl Config {
    /// `call` decided again under this configuration; `None` when it gets
    /// what it got (or is a question).
    pub fn replay(&self, call: &ToolCall) -> Option<Replayed> {
        self.replayed(call, what_happened(call)?)
    }

    /// `call`, which got `was`, decided again.
    fn replayed(&self, call: &ToolCall, was: Expect) -> Option<Replayed> {
        let (granted, read_only_hint) = facts_in_reason(&call.tool, &call.policy_reason);
        let arguments = call.original_arguments.as_ref().unwrap_or(&call.arguments);
        let verdict = self.policy_for(&call.source).decide(CallFacts {
            read_only_hint,
            granted,
            caller: call.caller.as_ref(),
            at: call.created_at,
            ..CallFacts::new(&call.source, &call.tool, arguments)
        });
        let now = Expect::of(&verdict);
        (now != was).then_some(Replayed {
            was,
            now,
            reason: verdict.reason,
        })
    }
}

impl ReplayReport {
    /// Counts `call` in.
    pub fn add(&mut self, config: &Config, call: &ToolCall) {
        let Some(was) = what_happened(call) else {
            return;
        };
        self.replayed += 1;
        if let Some(r) = config.replayed(call, was) {
            let change = self
                .changes
                .entry((r.was.as_str(), r.now.as_str()))
                .or_default();
            change.count += 1;
            if change.examples.len() < EXAMPLES {
                change.examples.push((call.clone(), r.reason));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::json;

    use super::*;
    use crate::domain::{Channel, Decision, DecisionKind};

    const NOW: &str = r#"
sources:
  files:
    policy_only: true
    trust_read_only_hints: true
    require_approval: [delete_file]
"#;

    const NEW: &str = r#"
sources:
  files:
    policy_only: true
    trust_read_only_hints: true
    require_approval: [delete_file]
    rules:
      - tool: delete_file
        when: [{ arg: /path, glob: "/tmp/**" }]
        action: allow
      - tool: write_file
        action: deny
"#;

    /// A call of `files` as the current policy decided it.
    fn decided(tool: &str, path: &str, read_only: bool) -> ToolCall {
        let config = Config::parse("now.yaml", NOW).unwrap();
        let arguments = json!({ "path": path });
        let verdict = config.policy_for("files").decide(CallFacts {
            read_only_hint: read_only,
            ..CallFacts::new("files", tool, &arguments)
        });
        let mut call = ToolCall::waiting("files", tool, arguments);
        call.status = match Expect::of(&verdict) {
            Expect::Allow => CallStatus::Completed,
            Expect::Ask => CallStatus::PendingApproval,
            Expect::Deny | Expect::Hidden => CallStatus::Rejected,
        };
        call.policy_reason = verdict.reason;
        call
    }

    #[test]
    fn a_stored_call_says_what_its_policy_did() {
        let mut asked = decided("delete_file", "/a", false);
        assert_eq!(what_happened(&asked), Some(Expect::Ask));
        asked.status = CallStatus::Rejected;
        asked.decision = Some(Decision {
            kind: DecisionKind::Reject,
            by: "Ana".into(),
            by_id: None,
            at: Utc::now(),
            reason: None,
            channel: Channel::Chat,
        });
        assert_eq!(
            what_happened(&asked),
            Some(Expect::Ask),
            "a person rejected it"
        );
        assert_eq!(
            what_happened(&decided("read_file", "/a", true)),
            Some(Expect::Allow)
        );
        let mut question = decided("x", "/a", false);
        question.source = crate::domain::AGENT_SOURCE.into();
        question.tool = crate::domain::QUESTION_TOOL.into();
        assert_eq!(what_happened(&question), None);
    }

    #[test]
    fn a_window_of_calls_replayed_counts_each_change_with_examples() {
        let new = Config::parse("new.yaml", NEW).unwrap();
        let mut report = ReplayReport::default();
        let calls = [
            decided("delete_file", "/tmp/a", false), // ask → allow (rule 1)
            decided("delete_file", "/tmp/b", false), // ask → allow
            decided("delete_file", "/srv/c", false), // unchanged
            decided("write_file", "/srv/d", false),  // ask → deny (rule 2)
            decided("read_file", "/srv/e", true),    // allowed by its hint then and now
        ];
        for call in &calls {
            report.add(&new, call);
        }
        assert_eq!(report.replayed, 5);
        let to_allow = &report.changes[&("ask", "allow")];
        assert_eq!(to_allow.count, 2);
        assert!(to_allow.examples[0].1.starts_with("matched rule 1"));
        assert_eq!(report.changes[&("ask", "deny")].count, 1);
        assert_eq!(report.changes.len(), 2);
    }

    #[test]
    fn a_call_a_grant_allowed_is_replayed_with_the_grant_in_force() {
        let new = Config::parse("new.yaml", NEW).unwrap();
        let mut call = decided("delete_file", "/srv/granted", false);
        call.status = CallStatus::Completed;
        call.policy_reason = "always allowed: delete_file".into();
        assert_eq!(new.replay(&call), None);
        // A rule still comes before the grant.
        call.tool = "write_file".into();
        call.policy_reason = "always allowed: write_file".into();
        assert_eq!(new.replay(&call).map(|r| r.now), Some(Expect::Deny));
    }

    #[test]
    fn an_edited_call_is_replayed_with_the_arguments_it_was_proposed_with() {
        let new = Config::parse("new.yaml", NEW).unwrap();
        let mut call = decided("delete_file", "/srv/kept", false);
        call.original_arguments = Some(call.arguments.clone());
        call.arguments = json!({ "path": "/tmp/edited" });
        assert_eq!(new.replay(&call), None);
    }
}
