//! Policy you can test before it bites: one call checked against a
//! configuration (`airlock policy check`), and a file of calls with the
//! verdict each should get (`airlock policy test`), so an operator can keep
//! their policy under CI. Pure: grants ("Always allow") live in the
//! database and are not consulted; a call is checked as if none were in
//! force.

use serde::Deserialize;
use serde_json::Value;

use chrono::{DateTime, Utc};

use super::Config;
use crate::domain::Caller;
use crate::policy::{CallFacts, Outcome, PolicyVerdict};

/// What a call gets, in the words the cases file and the terminal use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// It runs at once.
    Allow,
    /// It waits for a person.
    Ask,
    /// It is refused.
    Deny,
    /// The tool is not offered at all.
    Hidden,
}

impl Expect {
    /// The word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Expect::Allow => "allow",
            Expect::Ask => "ask",
            Expect::Deny => "deny",
            Expect::Hidden => "hidden",
        }
    }

    /// The exit code `airlock policy check` gives it: 0 allow, 1 ask,
    /// 2 deny, 3 hidden.
    pub fn exit_code(self) -> u8 {
        match self {
            Expect::Allow => 0,
            Expect::Ask => 1,
            Expect::Deny => 2,
            Expect::Hidden => 3,
        }
    }

    /// What `verdict` comes to.
    pub fn of(verdict: &PolicyVerdict) -> Self {
        match (verdict.outcome, verdict.hidden) {
            (_, true) => Expect::Hidden,
            (Outcome::Allow, false) => Expect::Allow,
            (Outcome::RequireApproval, false) => Expect::Ask,
            (Outcome::Deny, false) => Expect::Deny,
        }
    }
}

/// One call to check: its source, tool and arguments.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyCall {
    pub source: String,
    pub tool: String,
    /// The arguments, a JSON object (default `{}`).
    #[serde(default = "empty_object")]
    pub args: Value,
    /// Whether the tool declares itself read-only (MCP `readOnlyHint`).
    #[serde(default)]
    pub read_only: bool,
    /// Who asks; absent: a caller nothing is known of. A person given
    /// without groups is in the groups `auth.groups` gives them.
    #[serde(default)]
    pub caller: Option<Caller>,
    /// When it is asked (RFC 3339); absent: now.
    #[serde(default)]
    pub at: Option<DateTime<Utc>>,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

/// A call and the verdict it should get, as a cases file lists them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "CaseEntry")]
pub struct PolicyCase {
    /// A name for the case, shown when it fails.
    pub name: Option<String>,
    pub call: PolicyCall,
    pub expect: Expect,
}

/// A case as written: the call's fields beside `name` and `expect` (serde
/// takes no unknown-field check through `flatten`, so they are listed).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseEntry {
    #[serde(default)]
    name: Option<String>,
    source: String,
    tool: String,
    #[serde(default = "empty_object")]
    args: Value,
    #[serde(default)]
    read_only: bool,
    #[serde(default)]
    caller: Option<Caller>,
    #[serde(default)]
    at: Option<DateTime<Utc>>,
    expect: Expect,
}

impl From<CaseEntry> for PolicyCase {
    fn from(e: CaseEntry) -> Self {
        Self {
            name: e.name,
            call: PolicyCall {
                source: e.source,
                tool: e.tool,
                args: e.args,
                read_only: e.read_only,
                caller: e.caller,
                at: e.at,
            },
            expect: e.expect,
        }
    }
}

/// A case whose call got another verdict than it should.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseFailure {
    /// Its place in the file, from 1.
    pub number: usize,
    pub case: PolicyCase,
    /// What the call got, and why.
    pub verdict: PolicyVerdict,
}

/// Why a cases file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CasesError {
    #[error("{file}: {message}")]
    Unreadable { file: String, message: String },
    #[error("{file}: case {number}: args must be a JSON object")]
    ArgsNotAnObject { file: String, number: usize },
    #[error("{file}: there are no cases in it")]
    Empty { file: String },
}

/// Reads a cases file (`file` names it in errors): a YAML list of cases.
pub fn read_cases(file: &str, text: &str) -> Result<Vec<PolicyCase>, CasesError> {
    let cases: Vec<PolicyCase> =
        serde_yaml::from_str(text).map_err(|e| CasesError::Unreadable {
            file: file.to_owned(),
            message: e.to_string(),
        })?;
    if cases.is_empty() {
        return Err(CasesError::Empty {
            file: file.to_owned(),
        });
    }
    if let Some(number) = cases.iter().position(|c| !c.call.args.is_object()) {
        return Err(CasesError::ArgsNotAnObject {
            file: file.to_owned(),
            number: number + 1,
        });
    }
    Ok(cases)
}

impl Config {
    /// The verdict `call` gets under this configuration, with no grant in
    /// force.
    pub fn check(&self, call: &PolicyCall) -> PolicyVerdict {
        let mut caller = call.caller.clone().unwrap_or_else(Caller::local);
        if let (true, Some(auth), Some(person)) =
            (caller.groups.is_empty(), &self.auth, &caller.person)
        {
            caller.groups = auth.groups_of(person);
        }
        self.policy_for(&call.source).decide(CallFacts {
            read_only_hint: call.read_only,
            caller: Some(&caller),
            at: call.at.unwrap_or_else(Utc::now),
            ..CallFacts::new(&call.source, &call.tool, &call.args)
        })
    }

    /// The cases whose calls get another verdict than they should.
    pub fn failing_cases(&self, cases: &[PolicyCase]) -> Vec<CaseFailure> {
        cases
            .iter()
            .enumerate()
            .filter_map(|(index, case)| {
                let verdict = self.check(&case.call);
                (Expect::of(&verdict) != case.expect).then(|| CaseFailure {
                    number: index + 1,
                    case: case.clone(),
                    verdict,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const CONFIG: &str = r#"
sources:
  files:
    policy_only: true
    tool_blacklist: ["admin_*"]
    auto_approved_tools: ["read_*"]
    require_approval: [delete_file]
    trust_read_only_hints: true
    rules:
      - tool: write_file
        when: [{ arg: /path, glob: "/etc/**" }]
        action: deny
"#;

    fn call(source: &str, tool: &str, args: Value) -> PolicyCall {
        PolicyCall {
            source: source.into(),
            tool: tool.into(),
            args,
            read_only: false,
            caller: None,
            at: None,
        }
    }

    #[test]
    fn each_level_of_the_policy_gives_its_verdict_and_exit_code() {
        let config = Config::parse("test.yaml", CONFIG).unwrap();
        let table = [
            (call("files", "read_file", json!({})), Expect::Allow, 0),
            (call("files", "delete_file", json!({})), Expect::Ask, 1),
            (
                call("files", "write_file", json!({"path": "/etc/passwd"})),
                Expect::Deny,
                2,
            ),
            (call("files", "admin_reset", json!({})), Expect::Hidden, 3),
            // No rule matches outside /etc: the block's default asks.
            (
                call("files", "write_file", json!({"path": "/tmp/a"})),
                Expect::Ask,
                1,
            ),
        ];
        for (call, expect, code) in table {
            let got = Expect::of(&config.check(&call));
            assert_eq!((got, got.exit_code()), (expect, code), "{call:?}");
        }
        let mut hinted = call("files", "list_things", json!({}));
        assert_eq!(Expect::of(&config.check(&hinted)), Expect::Ask);
        hinted.read_only = true;
        assert_eq!(Expect::of(&config.check(&hinted)), Expect::Allow);
        let verdict = config.check(&call("files", "write_file", json!({"path": "/etc/x"})));
        assert!(verdict.reason.starts_with("matched rule 1"), "{verdict:?}");
    }

    #[test]
    fn a_cases_file_lists_the_calls_that_get_another_verdict() {
        let config = Config::parse("test.yaml", CONFIG).unwrap();
        let cases = read_cases(
            "cases.yaml",
            r#"
- source: files
  tool: read_file
  expect: allow
- name: nothing under /etc is written
  source: files
  tool: write_file
  args: { path: /etc/hosts }
  expect: allow
- source: files
  tool: delete_file
  expect: ask
"#,
        )
        .unwrap();
        let failures = config.failing_cases(&cases);
        assert_eq!(failures.len(), 1);
        let failure = &failures[0];
        assert_eq!(failure.number, 2);
        assert_eq!(
            failure.case.name.as_deref(),
            Some("nothing under /etc is written")
        );
        assert_eq!(Expect::of(&failure.verdict), Expect::Deny);
    }

    #[test]
    fn a_cases_file_that_cannot_be_read_says_where() {
        let unknown = read_cases("c.yaml", "- source: a\n  tool: b\n  expect: maybe\n");
        assert!(
            matches!(&unknown, Err(CasesError::Unreadable { message, .. }) if message.contains("maybe")),
            "{unknown:?}"
        );
        let typo = read_cases("c.yaml", "- source: a\n  tool: b\n  expects: ask\n");
        assert!(matches!(typo, Err(CasesError::Unreadable { .. })));
        let args = read_cases(
            "c.yaml",
            "- source: a\n  tool: b\n  args: [1]\n  expect: ask\n",
        );
        assert!(matches!(
            args,
            Err(CasesError::ArgsNotAnObject { number: 1, .. })
        ));
        assert!(matches!(
            read_cases("c.yaml", "[]"),
            Err(CasesError::Empty { .. })
        ));
    }
}
