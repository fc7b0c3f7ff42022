//! An OPA Rego module over tool calls, evaluated in-process by `regorus`.
//! Its query (`data.airlock.decision`) reads `input` (`code/input.rs`) and
//! gives `"allow"`, `"ask"` or `"deny"`, or an object with `outcome` and
//! `reason` (and, for an ask, `approvers`, `approvals_required`,
//! `separation_of_duties`, `step_up`, `notify`). Undefined falls through;
//! anything else, or an evaluation error, makes the call wait for a person.

use std::sync::Arc;

use regorus::languages::rego::compiler::Compiler;
use regorus::rvm::{Program, RegoVM};
use regorus::{CompiledPolicy, Engine};
use serde::Deserialize;
use serde_json::Value;

use super::input::rego_input;
use super::{CodeVerdict, PolicyFile};
use crate::domain::MAX_APPROVALS;
use crate::policy::rules::Overrides;
use crate::policy::{CallFacts, Outcome, PolicyError, Position};

/// A compiled Rego module and the rule asked.
#[derive(Debug)]
pub(super) struct RegoPolicy {
    compiled: CompiledPolicy,
    /// The `data:` document (an empty object without one).
    data: regorus::Value,
    /// The module compiled for regorus's virtual machine, several times
    /// faster than its interpreter; `None` where the machine cannot run it.
    program: Option<Arc<Program>>,
    query: String,
    file: String,
}

/// A decision as the rule may give it.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Given {
    Word(Word),
    Object(Decision),
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Word {
    Allow,
    Ask,
    Deny,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Decision {
    outcome: Word,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    approvers: Option<Vec<String>>,
    #[serde(default)]
    approvals_required: Option<u32>,
    #[serde(default)]
    separation_of_duties: Option<bool>,
    #[serde(default)]
    step_up: Option<StepUpWord>,
    #[serde(default)]
    notify: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum StepUpWord {
    Passkey,
}

/// What the decision's shape must be, for messages.
const SHAPE: &str =
    "a decision is \"allow\", \"ask\", \"deny\" or {\"outcome\": one of them, \"reason\": text}";

impl RegoPolicy {
    pub(super) fn compile(
        file: &PolicyFile,
        data: Option<regorus::Value>,
        query: &str,
        key: &str,
    ) -> Result<Self, PolicyError> {
        let fail = |problem: String, at: Option<Position>| PolicyError {
            at,
            ..PolicyError::new(&file.name, key, problem)
        };
        if !query.starts_with("data.") {
            let problem = format!("`{query}`: a query names a rule, `data.<package>.<rule>`");
            return Err(PolicyError::new(
                "",
                key.replace(".rego", ".query"),
                problem,
            ));
        }
        let mut engine = Engine::new();
        let data = data.unwrap_or_else(regorus::Value::new_object);
        engine
            .add_data(data.clone())
            .map_err(|e| fail(first_line(&e.to_string()), None))?;
        engine
            .add_policy(file.name.clone(), file.text.clone())
            .map_err(|e| {
                let message = e.to_string();
                let at = place(&message, &file.name);
                fail(first_line(&message), at)
            })?;
        // A query naming no rule is the configuration's mistake.
        let compiled = engine.compile_with_entrypoint(&query.into()).map_err(|e| {
            let problem = format!("`{query}`: {}", first_line(&e.to_string()));
            PolicyError::new("", key.replace(".rego", ".query"), problem)
        })?;
        let program = Compiler::compile_from_policy(&compiled, &[query]).ok();
        let policy = Self {
            program,
            compiled,
            data,
            query: query.to_owned(),
            file: file.name.clone(),
        };
        // A rule that gives something other than a decision for a call that
        // names nothing would give it for others: refused before it runs.
        let probe = crate::policy::CallFacts::new("", "", &Value::Null);
        if let Ok(given) = policy.eval(rego_input(&probe).into()) {
            if let Err(problem) = policy.read(given) {
                return Err(fail(problem, rule_line(&file.text, query)));
            }
        }
        Ok(policy)
    }

    /// The query's value for `input`.
    fn eval(&self, input: regorus::Value) -> Result<regorus::Value, String> {
        let Some(program) = &self.program else {
            return self
                .compiled
                .eval_with_input(input)
                .map_err(|e| e.to_string());
        };
        let mut vm = RegoVM::new_with_policy(self.compiled.clone());
        vm.load_program(program.clone());
        vm.set_data(self.data.clone()).map_err(|e| e.to_string())?;
        vm.set_input(input);
        vm.execute_entry_point_by_name(&self.query)
            .map_err(|e| e.to_string())
    }

    pub(super) fn decide(&self, call: &CallFacts<'_>) -> Option<CodeVerdict> {
        let given = match self.eval(rego_input(call).into()) {
            Ok(given) => given,
            Err(e) => return Some(self.unsure(first_line(&e))),
        };
        match self.read(given) {
            Ok(verdict) => verdict,
            Err(problem) => Some(self.unsure(problem)),
        }
    }

    /// The verdict the rule's value gives, `None` when it is undefined.
    fn read(&self, given: regorus::Value) -> Result<Option<CodeVerdict>, String> {
        if given == regorus::Value::Undefined {
            return Ok(None);
        }
        let json = serde_json::to_value(&given).map_err(|e| e.to_string())?;
        let decision = match Given::deserialize(&json) {
            Ok(Given::Word(outcome)) => Decision::of(outcome),
            Ok(Given::Object(decision)) => decision,
            Err(_) => return Err(format!("{} gives {json}: {SHAPE}", self.query)),
        };
        let outcome = match decision.outcome {
            Word::Allow => Outcome::Allow,
            Word::Ask => Outcome::RequireApproval,
            Word::Deny => Outcome::Deny,
        };
        let said = match decision.outcome {
            Word::Allow => "allows",
            Word::Ask => "asks a person",
            Word::Deny => "denies",
        };
        let reason = match &decision.reason {
            Some(reason) => format!("{reason} (Rego {} {said}, {})", self.query, self.file),
            None => format!("Rego {} {said} ({})", self.query, self.file),
        };
        if let Some(n) = decision.approvals_required {
            if !(1..=MAX_APPROVALS).contains(&n) {
                return Err(format!(
                    "{} gives approvals_required {n}: a call needs 1 to {MAX_APPROVALS} people to approve it",
                    self.query
                ));
            }
        }
        Ok(Some(CodeVerdict {
            outcome,
            reason,
            overrides: Overrides {
                approvers: decision.approvers,
                separation_of_duties: decision.separation_of_duties,
                approvals_required: decision.approvals_required,
                notify: decision.notify,
                follow_up: None,
                step_up: decision.step_up.map(|_| true),
            },
        }))
    }

    /// A call that waits because the rule failed or gave no decision.
    fn unsure(&self, problem: String) -> CodeVerdict {
        CodeVerdict {
            outcome: Outcome::RequireApproval,
            reason: format!(
                "a person decides: the Rego policy {} failed ({problem})",
                self.file
            ),
            overrides: Overrides::default(),
        }
    }
}

impl Decision {
    fn of(outcome: Word) -> Self {
        Self {
            outcome,
            reason: None,
            approvers: None,
            approvals_required: None,
            separation_of_duties: None,
            step_up: None,
            notify: None,
        }
    }
}

/// A `data:` file (JSON or YAML) as the document a module reads as
/// `data`: an object, whose keys sit beside the modules' packages.
pub(super) fn document(file: &PolicyFile, key: &str) -> Result<regorus::Value, PolicyError> {
    let fail = |problem: String| PolicyError::new(&file.name, key, problem);
    let value: Value = serde_yaml::from_str(&file.text).map_err(|e| fail(e.to_string()))?;
    if !value.is_object() {
        return Err(fail(
            "the data document is an object of named values".into(),
        ));
    }
    Ok(value.into())
}

/// A message's first line: regorus follows it with the source it quotes.
fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or(message).trim().to_owned()
}

/// The `file:line:column` regorus writes into a message, as a position.
fn place(message: &str, file: &str) -> Option<Position> {
    let rest = &message[message.find(&format!("{file}:"))? + file.len() + 1..];
    let mut numbers = rest.split(|c: char| !c.is_ascii_digit());
    let line = numbers.next()?.parse().ok()?;
    let column = numbers.next()?.parse().ok()?;
    Some(Position { line, column })
}

/// Where the rule `query` names is first defined in `text`.
fn rule_line(text: &str, query: &str) -> Option<Position> {
    let rule = query.rsplit('.').next()?;
    let line = text.lines().position(|l| {
        let rest = l.trim_start().strip_prefix(rule);
        rest.is_some_and(|r| r.starts_with([' ', ':', '=', '{', '[', '\t']) || r.is_empty())
    })?;
    Some(Position {
        line: line + 1,
        column: 1,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const MODULE: &str = include_str!("../../../../docs/examples/policy/fs.rego");

    /// The example module's verdicts on a few calls, by the machine or,
    /// without its program, by the interpreter.
    fn verdicts(policy: &RegoPolicy) -> Vec<Option<(Outcome, String)>> {
        let calls = [
            ("delete_file", json!({"path": "/prod/db"})),
            ("deploy", json!({})),
            ("write_file", json!({"path": "a"})),
        ];
        calls
            .iter()
            .map(|(tool, args)| {
                let call = CallFacts {
                    at: "2026-11-27T10:00:00Z".parse().unwrap(),
                    ..CallFacts::new("fs", tool, args)
                };
                policy.decide(&call).map(|v| (v.outcome, v.reason))
            })
            .collect()
    }

    #[test]
    fn the_machine_and_the_interpreter_agree() {
        let file = PolicyFile {
            name: "fs.rego".into(),
            text: MODULE.into(),
        };
        let mut policy =
            RegoPolicy::compile(&file, None, "data.airlock.decision", "policy.rego").unwrap();
        assert!(policy.program.is_some(), "the example runs on the machine");
        let by_machine = verdicts(&policy);
        policy.program = None;
        assert_eq!(verdicts(&policy), by_machine);
        assert_eq!(by_machine[0].as_ref().unwrap().0, Outcome::Deny);
        assert_eq!(by_machine[1].as_ref().unwrap().0, Outcome::RequireApproval);
        assert_eq!(by_machine[2], None);
    }
}
