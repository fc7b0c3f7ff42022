//! Mistakes in a configuration file, as cases: each names the key path, the
//! line and a phrase of the problem. And the configurations the docs show,
//! which must keep parsing.

use rstest::rstest;

use super::{Config, Connection, SourceTimeouts};
use crate::policy::{PolicyConfig, Position};

#[rstest]
#[case::not_a_boolean(
    "sources:\n  git:\n    command: uvx\n    trust_read_only_hints: \"sometimes\"\n",
    "sources.git.trust_read_only_hints",
    4,
    "expected a boolean"
)]
#[case::args_as_one_string(
    "sources:\n  git:\n    command: uvx\n    args: -m mcp_server_git\n",
    "sources.git.args",
    4,
    r#"a list of strings, one per argument, e.g. `args: ["-m", "mcp_server_git"]`"#
)]
#[case::args_without_command(
    "sources:\n  git:\n    url: http://127.0.0.1:8000/mcp\n    args: [-v]\n",
    "sources.git.args",
    4,
    "for a server started by `command`"
)]
#[case::env_number(
    "sources:\n  x:\n    command: node\n    env:\n      HOST: localhost\n      PORT: 3000\n",
    "sources.x.env.PORT",
    6,
    "env values are strings: quote it, as in \"3000\""
)]
#[case::env_boolean(
    "sources:\n  x:\n    command: node\n    env: {DEBUG: true}\n",
    "sources.x.env.DEBUG",
    4,
    "env values are strings"
)]
#[case::unknown_action(
    "sources:\n  memory:\n    command: npx\n    rules:\n      - tool: \"*\"\n        action: block\n",
    "sources.memory.rules[0].action",
    6,
    "unknown variant `block`, expected one of"
)]
#[case::inline_submit_edit(
    "sources:\n  x:\n    policy_only: true\n    inline_submit: [approve, edit]\n",
    "sources.x.inline_submit[1]",
    4,
    "inline_submit lists approve and reject, each once"
)]
#[case::misspelt_action(
    "sources:\n  memory:\n    command: npx\n    default: alow\n",
    "sources.memory.default",
    4,
    "did you mean `allow`?"
)]
#[case::misspelt_source_without_connection(
    "sources:\n  memory:\n    command: npx\n  memroy: {auto_approved_tools: [\"*\"]}\n",
    "sources.memroy",
    4,
    "no connection: give `command` (a program spoken to over stdio) or `url` (streamable HTTP), `a2a` (a remote agent's card), or `policy_only: true`"
)]
#[case::misspelt_connection_key(
    "sources:\n  git:\n    comand: uvx\n",
    "sources.git.comand",
    3,
    "unknown key `comand`; did you mean `command`?"
)]
#[case::misspelt_policy_key(
    "sources:\n  fs:\n    command: x\n    auto_aproved_tools: [a]\n",
    "sources.fs.auto_aproved_tools",
    4,
    "unknown key `auto_aproved_tools`; did you mean `auto_approved_tools`?"
)]
#[case::unknown_key_far_from_any(
    "sources:\n  fs:\n    command: x\n    colour: blue\n",
    "sources.fs.colour",
    4,
    "unknown key `colour`; expected one of `command`"
)]
#[case::legacy_sse(
    "sources:\n  x:\n    url: http://127.0.0.1:8000/sse\n    transport_type: sse\n",
    "sources.x.transport_type",
    4,
    "the legacy SSE transport is not supported: use streamable HTTP (`url`) or stdio (`command`)"
)]
#[case::unknown_transport(
    "sources:\n  x:\n    url: http://127.0.0.1:8000/mcp\n    transport_type: websocket\n",
    "sources.x.transport_type",
    4,
    "unknown transport `websocket`"
)]
#[case::transport_that_does_not_fit(
    "sources:\n  x:\n    url: http://127.0.0.1:8000/mcp\n    transport_type: stdio\n",
    "sources.x.transport_type",
    4,
    "`stdio` does not fit this source"
)]
#[case::misspelt_top_level_key(
    "aprovals:\n  expires_after: 1h\n",
    "aprovals",
    1,
    "did you mean `approvals`?"
)]
#[case::bad_expiry(
    "approvals:\n  expires_after: 5x\n",
    "approvals.expires_after",
    2,
    "`5x` is not a duration like 24h, 30m or none"
)]
#[case::bad_glob(
    "sources:\n  fs:\n    command: x\n    tool_blacklist:\n      - ok\n      - \"a[\"\n",
    "sources.fs.tool_blacklist[1]",
    6,
    "bad glob `a[`"
)]
#[case::bad_regex(
    "sources:\n  fs:\n    command: x\n    rules:\n      - tool: write_file\n        action: deny\n      - tool: read_file\n        when: [{ arg: /path, regex: \"(\" }]\n        action: deny\n",
    "sources.fs.rules[1].when[0]",
    8,
    "regex"
)]
#[case::zero_time_out(
    "sources:\n  x:\n    command: node\n    connect_timeout: 0s\n",
    "sources.x.connect_timeout",
    4,
    "a time-out must be longer than zero"
)]
#[case::time_out_without_connection(
    "sources:\n  x:\n    policy_only: true\n    call_timeout: 30s\n",
    "sources.x.call_timeout",
    4,
    "for a source with a connection"
)]
#[case::policy_only_with_url(
    "sources:\n  x:\n    url: http://127.0.0.1:8000/mcp\n    policy_only: true\n",
    "sources.x.policy_only",
    4,
    "a policy-only block has no connection"
)]
#[case::both_command_and_url(
    "sources:\n  x:\n    command: node\n    url: http://127.0.0.1:8000/mcp\n",
    "sources.x",
    2,
    "give either command or url, not both"
)]
#[case::gateway_hash(
    "gateway:\n  api_keys:\n    - name: builder\n      sha256: test\n",
    "gateway.api_keys[0].sha256",
    4,
    "64 hex digits"
)]
#[case::gateway_key_without_name(
    "gateway:\n  api_keys:\n    - sha256: test\n",
    "gateway.api_keys[0]",
    3,
    "missing field `name`"
)]
#[case::gateway_misspelt_key(
    "gateway:\n  api_key: []\n",
    "gateway.api_key",
    2,
    "did you mean `api_keys`?"
)]
#[case::auth_misspelt_key(
    "auth:\n  pasword: true\n",
    "auth.pasword",
    2,
    "did you mean `passwords`?"
)]
#[case::auth_member(
    "auth:\n  passwords: true\n  groups:\n    ops: [ana, Bo]\n",
    "auth.groups.ops[1]",
    4,
    "`Bo` is not a plain name"
)]
#[case::undefined_group(
    "auth:\n  passwords: true\n  groups:\n    ops: [ana]\nsources:\n  fs:\n    command: x\n    approvers: [ops, opss]\n",
    "sources.fs.approvers[1]",
    8,
    "no group `opss` in `auth.groups`"
)]
#[case::step_up_without_people(
    "sources:\n  fs:\n    command: x\n    rules:\n      - tool: rm\n        action: require_approval\n        step_up: passkey\n",
    "sources.fs.rules[0].step_up",
    7,
    "`step_up: passkey` needs an `auth:` block"
)]
#[case::tab_indentation(
    "sources:\n\tgit:\n    command: uvx\n",
    "sources",
    2,
    "cannot start any token, while scanning for the next token (a tab: YAML indents with spaces)"
)]
#[case::tab_after_a_value(
    "approvals:\n  expires_after: 1h\n\tsources:\n",
    "approvals.expires_after",
    3,
    "found a tab character that violates indentation"
)]
fn a_mistake_names_its_key_and_line(
    #[case] yaml: &str,
    #[case] key: &str,
    #[case] line: usize,
    #[case] phrase: &str,
) {
    let e = Config::parse("airlock.yaml", yaml).unwrap_err();
    assert_eq!(e.key, key, "{e}");
    assert_eq!(e.at.map(|at| at.line), Some(line), "{e}");
    assert!(e.problem.contains(phrase), "{e}");
    let place = format!("airlock.yaml:{line}:");
    assert!(e.to_string().starts_with(&place), "{e}");
}

#[test]
fn the_message_reads_file_line_column_key_problem() {
    let yaml = "sources:\n  memory:\n    command: npx\n    rules:\n      - tool: \"*\"\n        action: block\n";
    let e = Config::parse("airlock.yaml", yaml).unwrap_err();
    assert_eq!(
        e.at,
        Some(Position {
            line: 6,
            column: 17
        })
    );
    assert_eq!(
        e.to_string(),
        "airlock.yaml:6:17: sources.memory.rules[0].action: unknown variant `block`, expected one of `deny`, `require_approval`, `allow`"
    );
}

#[test]
fn sources_without_a_connection_are_built_in_or_policy_only() {
    let yaml = "sources:\n  demo:\n    auto_approved_tools: [\"*\"]\n  external:\n    policy_only: true\n    require_approval: [deploy]\n";
    let config = Config::parse("a.yaml", yaml).unwrap();
    assert_eq!(config.sources["demo"].connection, Connection::BuiltIn);
    assert_eq!(
        config.sources["external"].connection,
        Connection::PolicyOnly
    );
    assert_eq!(
        config.sources["external"].policy_config.require_approval,
        ["deploy"]
    );
}

#[test]
fn time_outs_default_and_can_be_set_per_source() {
    let yaml = "sources:\n  slow:\n    command: node\n    env: {PORT: \"3000\"}\n    connect_timeout: 2m\n  quick:\n    url: http://127.0.0.1:8000/mcp\n    call_timeout: 30s\n";
    let config = Config::parse("a.yaml", yaml).unwrap();
    let slow = config.sources["slow"].timeouts;
    assert_eq!(slow.connect.as_secs(), 120);
    assert_eq!(slow.call, SourceTimeouts::default().call);
    assert_eq!(config.sources["quick"].timeouts.call.as_secs(), 30);
    assert!(matches!(
        &config.sources["slow"].connection,
        Connection::Stdio { env, .. } if env["PORT"] == "3000"
    ));
}

#[test]
fn every_policy_key_is_a_source_key() {
    // A policy with every key set, written out by serde, must come back
    // whole through a source block: the raw source lists the keys itself.
    let full = PolicyConfig {
        tools: Some(vec!["a".into()]),
        tool_blacklist: vec!["b*".into()],
        auto_approved_tools: vec!["c*".into()],
        require_approval: vec!["a".into()],
        rules: vec![serde_yaml::from_str(
            "{tool: a, action: require_approval, approvers: [ops], approvals_required: 3, notify: [ops-hook], remind_after: 5m, escalate_after: 1h, escalate_to: [ops-hook], then: reject, step_up: passkey}",
        )
        .unwrap()],
        default: crate::policy::DefaultAction::Allow,
        trust_read_only_hints: true,
        approvers: vec!["ops".into()],
        separation_of_duties: true,
        approvals_required: Some(2),
        review_link: crate::policy::ReviewLink::SignIn,
        inline_submit: vec!["approve".into(), "reject".into()],
        notify: vec!["ops-hook".into()],
        remind_after: Some("15m".into()),
        escalate_after: Some("1h".into()),
        escalate_to: vec!["ops-hook".into()],
        then: Some(crate::policy::Then::Reject),
        step_up: Some(crate::policy::StepUp::Passkey),
        previews: vec![serde_yaml::from_str("{tool: run, kind: command, cwd: /cwd, folder: /srv}")
            .unwrap()],
        policy: Some(crate::policy::code::CodeConfig {
            rego: Some("x.rego".into()),
            query: Some("data.x.decision".into()),
            data: Some("x.json".into()),
            ..Default::default()
        }),
    };
    let dir = tempfile::tempdir().unwrap();
    let rego = "package x\n\ndecision := \"ask\" if input.tool == \"a\"\n";
    std::fs::write(dir.path().join("x.rego"), rego).unwrap();
    std::fs::write(dir.path().join("x.json"), r#"{"limits": {"amount": 10}}"#).unwrap();
    let file = dir.path().join("a.yaml").display().to_string();
    let block = serde_yaml::to_string(&full)
        .unwrap()
        .replace('\n', "\n    ");
    let yaml = format!(
        "auth:\n  passwords: true\n  groups:\n    ops: [ana]\nnotify:\n  ops-hook: {{webhook: https://x}}\nsources:\n  x:\n    policy_only: true\n    {block}"
    );
    let config = Config::parse(&file, &yaml).unwrap();
    assert_eq!(config.sources["x"].policy_config, full);
}
