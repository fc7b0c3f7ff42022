//! Compiled globs and argument rules.

use globset::{Glob, GlobBuilder, GlobMatcher};
use regex::Regex;
use serde_json::Value;

use super::rule_config::{ConditionConfig, RuleAction};

/// Compiles a glob for tool names or argument values. `*` matches within a
/// path segment and `**` across segments, as in a shell.
pub(super) fn compile_glob(pattern: &str) -> Result<GlobMatcher, globset::Error> {
    let glob: Glob = GlobBuilder::new(pattern).literal_separator(true).build()?;
    Ok(glob.compile_matcher())
}

/// A glob over tool names. Most name one tool outright: those compare as
/// text, several times faster than a glob matcher, and every call checks
/// a block's whole list of rules.
#[derive(Debug, Clone)]
pub(super) enum NameGlob {
    Exact(String),
    Pattern(GlobMatcher),
}

impl NameGlob {
    pub(super) fn compile(pattern: &str) -> Result<Self, globset::Error> {
        match pattern.contains(['*', '?', '[', ']', '{', '}', '\\']) {
            true => Ok(NameGlob::Pattern(compile_glob(pattern)?)),
            false => Ok(NameGlob::Exact(pattern.to_owned())),
        }
    }

    pub(super) fn is_match(&self, name: &str) -> bool {
        match self {
            NameGlob::Exact(exact) => exact == name,
            NameGlob::Pattern(matcher) => matcher.is_match(name),
        }
    }
}

/// An ordered list of globs that remembers each pattern, so a verdict can say
/// which one matched.
#[derive(Debug, Clone, Default)]
pub(super) struct GlobList {
    globs: Vec<(String, NameGlob)>,
}

impl GlobList {
    pub(super) fn new(globs: Vec<(String, NameGlob)>) -> Self {
        Self { globs }
    }

    /// The first pattern that matches `name`.
    pub(super) fn first_match(&self, name: &str) -> Option<&str> {
        self.globs
            .iter()
            .find(|(_, m)| m.is_match(name))
            .map(|(p, _)| p.as_str())
    }
}

/// How one argument is tested.
#[derive(Debug, Clone)]
pub(super) enum Test {
    Glob(String, GlobMatcher),
    Regex(Regex),
    Equals(Value),
    Gt(f64),
    Gte(f64),
    Lt(f64),
    Lte(f64),
}

/// A test on the argument at a JSON pointer.
#[derive(Debug, Clone)]
pub(super) struct Condition {
    pub pointer: String,
    pub test: Test,
}

impl Condition {
    pub(super) fn compile(c: &ConditionConfig) -> Result<Self, String> {
        if !c.arg.is_empty() && !c.arg.starts_with('/') {
            return Err(format!(
                "`{}` is not a JSON pointer (it must start with /)",
                c.arg
            ));
        }
        let mut tests = Vec::new();
        if let Some(g) = &c.glob {
            tests.push(Test::Glob(
                g.clone(),
                compile_glob(g).map_err(|e| e.to_string())?,
            ));
        }
        if let Some(r) = &c.regex {
            tests.push(Test::Regex(Regex::new(r).map_err(|e| e.to_string())?));
        }
        if let Some(v) = &c.equals {
            tests.push(Test::Equals(v.clone()));
        }
        for (bound, make) in [
            (c.gt, Test::Gt as fn(f64) -> Test),
            (c.gte, Test::Gte),
            (c.lt, Test::Lt),
            (c.lte, Test::Lte),
        ] {
            if let Some(b) = bound {
                tests.push(make(b));
            }
        }
        match tests.len() {
            1 => Ok(Self {
                pointer: c.arg.clone(),
                test: tests.remove(0),
            }),
            0 => Err("a condition needs one of glob, regex, equals, gt, gte, lt, lte".into()),
            _ => {
                Err("a condition takes exactly one of glob, regex, equals, gt, gte, lt, lte".into())
            }
        }
    }

    fn matches(&self, arguments: &Value) -> bool {
        let Some(value) = arguments.pointer(&self.pointer) else {
            return false;
        };
        match &self.test {
            Test::Glob(_, m) => value.as_str().is_some_and(|s| m.is_match(s)),
            Test::Regex(r) => value.as_str().is_some_and(|s| r.is_match(s)),
            Test::Equals(expected) => value == expected,
            Test::Gt(b) => value.as_f64().is_some_and(|v| v > *b),
            Test::Gte(b) => value.as_f64().is_some_and(|v| v >= *b),
            Test::Lt(b) => value.as_f64().is_some_and(|v| v < *b),
            Test::Lte(b) => value.as_f64().is_some_and(|v| v <= *b),
        }
    }

    fn describe(&self) -> String {
        let what = match &self.test {
            Test::Glob(p, _) => format!("glob {p}"),
            Test::Regex(r) => format!("regex {}", r.as_str()),
            Test::Equals(v) => format!("= {v}"),
            Test::Gt(b) => format!("> {b}"),
            Test::Gte(b) => format!(">= {b}"),
            Test::Lt(b) => format!("< {b}"),
            Test::Lte(b) => format!("<= {b}"),
        };
        format!(
            "{} {what}",
            if self.pointer.is_empty() {
                "/"
            } else {
                &self.pointer
            }
        )
    }
}

/// What a rule (or a code policy) says of who decides the calls it sends
/// to a person, where it says more than its block.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Overrides {
    /// Its approver groups, when it names its own.
    pub approvers: Option<Vec<String>>,
    /// Its separation of duties, when it sets its own.
    pub separation_of_duties: Option<bool>,
    /// Its number of approvals, when it sets its own.
    pub approvals_required: Option<u32>,
    /// Its notification channels, when it names its own.
    pub notify: Option<Vec<String>>,
    /// Its reminder and escalation, when it sets its own.
    pub follow_up: Option<crate::domain::FollowUp>,
    /// Whether approving its calls takes a passkey, when it says.
    pub step_up: Option<bool>,
}

/// A rule: a tool glob, conditions that must all hold, and an action.
#[derive(Debug, Clone)]
pub(super) struct CompiledRule {
    pub tool: NameGlob,
    pub conditions: Vec<Condition>,
    pub action: RuleAction,
    pub overrides: Overrides,
}

impl CompiledRule {
    /// When the rule applies, a description of what matched.
    pub(super) fn matches(&self, tool: &str, arguments: &Value) -> Option<String> {
        if !self.tool.is_match(tool) || !self.conditions.iter().all(|c| c.matches(arguments)) {
            return None;
        }
        let mut described = vec![tool.to_owned()];
        described.extend(self.conditions.iter().map(Condition::describe));
        Some(described.join(" "))
    }
}
