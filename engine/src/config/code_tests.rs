//! Code policies through the configuration: one policy written in YAML,
//! Cedar and Rego (docs/examples/policy) gives the same verdicts, and a
//! file that cannot be used stops start-up with its name and line.

use rstest::rstest;
use serde_json::json;

use super::policy_cases::{read_cases, Expect, PolicyCall};
use super::Config;
use crate::domain::Caller;
use crate::policy::PolicyError;

const EXAMPLES: &[(&str, &str)] = &[
    (
        "fs.yaml",
        include_str!("../../../docs/examples/policy/fs.yaml"),
    ),
    (
        "fs-cedar.yaml",
        include_str!("../../../docs/examples/policy/fs-cedar.yaml"),
    ),
    (
        "fs-rego.yaml",
        include_str!("../../../docs/examples/policy/fs-rego.yaml"),
    ),
    (
        "fs.cedar",
        include_str!("../../../docs/examples/policy/fs.cedar"),
    ),
    (
        "fs.rego",
        include_str!("../../../docs/examples/policy/fs.rego"),
    ),
    (
        "airlock.cedarschema",
        include_str!("../../../docs/examples/policy/airlock.cedarschema"),
    ),
];
const CASES: &str = include_str!("../../../docs/examples/policy/fs-cases.yaml");
const CODE_CASES: &str = include_str!("../../../docs/examples/policy/fs-cases-code.yaml");

/// The configuration `name` among `files`, written into a folder of their own.
fn parse(name: &str, files: &[(&str, &str)]) -> Result<Config, PolicyError> {
    let dir = tempfile::tempdir().unwrap();
    for (file, text) in files {
        std::fs::write(dir.path().join(file), text).unwrap();
    }
    let (_, yaml) = files.iter().find(|(f, _)| *f == name).unwrap();
    Config::parse(&dir.path().join(name).display().to_string(), yaml)
}

fn example(name: &str) -> Config {
    parse(name, EXAMPLES).unwrap_or_else(|e| panic!("{e}"))
}

#[rstest]
fn one_policy_in_three_languages_gives_the_same_verdicts(
    #[values("fs.yaml", "fs-cedar.yaml", "fs-rego.yaml")] name: &str,
) {
    let config = example(name);
    let cases = read_cases("fs-cases.yaml", CASES).unwrap();
    let failing = config.failing_cases(&cases);
    assert!(failing.is_empty(), "{name}: {failing:#?}");
}

#[rstest]
fn only_code_reads_the_callers_groups_and_the_time(
    #[values("fs-cedar.yaml", "fs-rego.yaml")] name: &str,
) {
    let cases = read_cases("fs-cases-code.yaml", CODE_CASES).unwrap();
    assert!(example(name).failing_cases(&cases).is_empty());
    // YAML rules see neither: these calls get the YAML block's answers.
    let yaml = example("fs.yaml").failing_cases(&cases);
    assert_eq!(yaml.len(), cases.len(), "{yaml:#?}");
}

#[rstest]
fn four_eyes_and_approvers_come_from_the_policy_in_each_language(
    #[values("fs.yaml", "fs-cedar.yaml", "fs-rego.yaml")] name: &str,
) {
    let deploy = PolicyCall {
        source: "fs".into(),
        tool: "deploy".into(),
        args: json!({"target": "production"}),
        read_only: false,
        caller: Some(Caller::local()),
        at: Some("2026-11-27T10:00:00Z".parse().unwrap()),
    };
    let verdict = example(name).check(&deploy);
    assert_eq!(Expect::of(&verdict), Expect::Ask, "{verdict:?}");
    assert_eq!(verdict.approvals_required, 2, "{name}");
    assert_eq!(verdict.approvers, ["release"], "{name}");
    assert!(verdict.reason.contains("two people of release") || name == "fs.yaml");
}

/// A call of `tool` with `args` from the `fs` source, at ten in the morning.
fn call(tool: &str, args: serde_json::Value) -> PolicyCall {
    PolicyCall {
        source: "fs".into(),
        tool: tool.into(),
        args,
        read_only: false,
        caller: None,
        at: Some("2026-11-27T10:00:00Z".parse().unwrap()),
    }
}

#[test]
fn a_deny_anywhere_wins_and_the_card_says_which_policy() {
    let yaml = "auth:\n  passwords: true\n  groups: {release: [rita]}\nsources:\n  fs:\n    policy_only: true\n    rules:\n      - tool: '*'\n        action: allow\n    policy: {cedar: fs.cedar}\n";
    let config = parse("a.yaml", &[("a.yaml", yaml), ("fs.cedar", EXAMPLES[3].1)]).unwrap();
    let denied = config.check(&call("delete_file", json!({"path": "/prod/db"})));
    assert_eq!(Expect::of(&denied), Expect::Deny);
    assert!(
        denied.reason.contains("nothing is deleted in production")
            && denied.reason.contains("fs.cedar:8"),
        "{}",
        denied.reason
    );
    // Where the code does not deny, the YAML rule before it decides.
    let allowed = config.check(&call("deploy", json!({})));
    assert_eq!(Expect::of(&allowed), Expect::Allow, "{}", allowed.reason);
}

#[test]
fn a_top_level_policy_decides_every_block() {
    let yaml =
        "policy: {rego: all.rego}\nsources:\n  fs:\n    policy_only: true\n    default: allow\n";
    let rego =
        "package airlock\n\ndecision := \"deny\" if input.arguments.path == \"/etc/shadow\"\n";
    let config = parse("a.yaml", &[("a.yaml", yaml), ("all.rego", rego)]).unwrap();
    let shadow = json!({"path": "/etc/shadow"});
    for source in ["fs", "gateway"] {
        let mut asked = call("read_file", shadow.clone());
        asked.source = source.into();
        assert_eq!(Expect::of(&config.check(&asked)), Expect::Deny, "{source}");
    }
    let fine = config.check(&call("read_file", json!({"path": "notes.md"})));
    assert_eq!(Expect::of(&fine), Expect::Allow, "{}", fine.reason);
}

#[test]
fn a_policy_that_fails_on_a_call_makes_it_wait() {
    // `path` is a number here: the policy cannot compare it, and a person
    // decides rather than the call running past a forbid that could not run.
    let cedar = "forbid (principal, action, resource) when { context.arguments.path like \"/prod/*\" };\npermit (principal, action, resource);\n";
    let yaml = "sources:\n  fs:\n    policy_only: true\n    policy: {cedar: p.cedar}\n";
    let config = parse("a.yaml", &[("a.yaml", yaml), ("p.cedar", cedar)]).unwrap();
    let odd = config.check(&call("delete_file", json!({"path": 7})));
    assert_eq!(Expect::of(&odd), Expect::Ask, "{}", odd.reason);
    assert!(odd.reason.contains("failed"), "{}", odd.reason);
    let fine = config.check(&call("delete_file", json!({"path": "/tmp/a"})));
    assert_eq!(Expect::of(&fine), Expect::Allow, "{}", fine.reason);
}

/// The start-up error of a block whose policy is `key: file` with `text`
/// (Cedar validated against the example schema).
fn refusal(key: &str, file: &str, text: &str) -> String {
    let schema = if key == "cedar" {
        ", schema: airlock.cedarschema"
    } else {
        ""
    };
    let yaml =
        format!("sources:\n  fs:\n    policy_only: true\n    policy: {{{key}: {file}{schema}}}\n");
    let files = [("a.yaml", yaml.as_str()), (file, text), EXAMPLES[5]];
    parse("a.yaml", &files).unwrap_err().to_string()
}

#[rstest]
#[case::cedar_syntax(
    "cedar",
    "p.cedar",
    "permit (principal, action, resource);\n\nforbid (principal action, resource);\n",
    "p.cedar:3:"
)]
#[case::cedar_schema(
    "cedar",
    "p.cedar",
    "permit (principal, action, resource)\nwhen { context.arguments.pth == \"x\" };\n",
    "p.cedar:2:"
)]
#[case::cedar_annotation(
    "cedar",
    "p.cedar",
    "@airlock(\"maybe\")\npermit (principal, action, resource);\n",
    "p.cedar:1:"
)]
#[case::rego_syntax("rego", "p.rego", "package airlock\n\ndecision := if {\n", "p.rego:3:")]
#[case::rego_shape(
    "rego",
    "p.rego",
    "package airlock\n\ndecision := {\"allow\": true}\n",
    "p.rego:3:"
)]
fn a_file_that_cannot_be_used_stops_start_up_at_its_line(
    #[case] key: &str,
    #[case] file: &str,
    #[case] text: &str,
    #[case] expected: &str,
) {
    let message = refusal(key, file, text);
    assert!(message.contains(expected), "{message}");
    assert!(message.contains("sources.fs.policy"), "{message}");
}

#[test]
fn a_file_that_is_not_there_is_named_with_the_key() {
    let yaml = "sources:\n  fs:\n    policy_only: true\n    policy: {rego: absent.rego}\n";
    let message = parse("a.yaml", &[("a.yaml", yaml)])
        .unwrap_err()
        .to_string();
    assert!(message.contains("a.yaml:4:"), "{message}");
    assert!(
        message.contains("sources.fs.policy.rego: cannot read"),
        "{message}"
    );
}

#[test]
fn a_query_naming_no_rule_is_placed_in_the_configuration() {
    let yaml = "sources:\n  fs:\n    policy_only: true\n    policy:\n      rego: p.rego\n      query: data.airlock.decisions\n";
    let rego = "package airlock\n\ndecision := \"ask\"\n";
    let message = parse("a.yaml", &[("a.yaml", yaml), ("p.rego", rego)])
        .unwrap_err()
        .to_string();
    assert!(message.contains("a.yaml:6:"), "{message}");
    assert!(message.contains("sources.fs.policy.query"), "{message}");
}

#[test]
fn a_cedar_policy_naming_a_group_nobody_defined_is_refused_at_its_line() {
    let cedar = "permit (principal, action, resource);\n\n@airlock(\"ask\")\n@approvers(\"relase\")\npermit (principal, action, resource == Tool::\"deploy\");\n";
    let yaml = "auth:\n  passwords: true\n  groups:\n    release: [rita]\nsources:\n  fs:\n    policy_only: true\n    policy: {cedar: p.cedar}\n";
    let message = parse("a.yaml", &[("a.yaml", yaml), ("p.cedar", cedar)])
        .unwrap_err()
        .to_string();
    assert!(message.contains("p.cedar:3:"), "{message}");
    assert!(message.contains("no group `relase`"), "{message}");
}

#[test]
fn a_rego_module_reads_its_data_document() {
    let yaml =
        "sources:\n  fs:\n    policy_only: true\n    policy: {rego: p.rego, data: secrets.yaml}\n";
    let rego = "package airlock\n\ndecision := \"deny\" if input.arguments.path in data.secrets\n";
    let data = "secrets: [/etc/shadow, /root/.ssh/id_ed25519]\n";
    let files = [("a.yaml", yaml), ("p.rego", rego), ("secrets.yaml", data)];
    let config = parse("a.yaml", &files).unwrap();
    let secret = config.check(&call("read_file", json!({"path": "/etc/shadow"})));
    assert_eq!(Expect::of(&secret), Expect::Deny, "{}", secret.reason);
    let other = config.check(&call("read_file", json!({"path": "/etc/hosts"})));
    assert_eq!(Expect::of(&other), Expect::Ask, "{}", other.reason);
    let listless = [
        ("a.yaml", yaml),
        ("p.rego", rego),
        ("secrets.yaml", "- /etc/shadow\n"),
    ];
    let refused = parse("a.yaml", &listless).unwrap_err().to_string();
    assert!(refused.contains("sources.fs.policy.data"), "{refused}");
}
