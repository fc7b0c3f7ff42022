//! The precedence table and every configuration key, as cases.

use rstest::rstest;
use serde_json::{json, Value};

use super::*;
use crate::config::{Config, Connection};

fn policy(yaml: &str) -> Policy {
    let config: PolicyConfig = serde_yaml::from_str(yaml).unwrap();
    config.compile("test.yaml", "sources.t").unwrap()
}

fn decide(p: &Policy, tool: &str, args: Value, read_only: bool, granted: bool) -> PolicyVerdict {
    p.decide(CallFacts {
        source: "fs",
        tool,
        arguments: &args,
        read_only_hint: read_only,
        granted,
        caller: None,
        at: chrono::DateTime::UNIX_EPOCH,
    })
}

/// One policy that exercises every level, so each case shows which level wins.
const LAYERED: &str = r#"
tool_blacklist: ["admin_*", "*_shutdown"]
auto_approved_tools: ["read_*", "list_*", "delete_tmp"]
require_approval: ["read_secrets", "delete_file"]
trust_read_only_hints: true
rules:
  - tool: "delete_*"
    when: [{ arg: /path, glob: "/prod/**" }]
    action: deny
  - tool: "read_*"
    when: [{ arg: /path, regex: "\\.env$" }]
    action: require_approval
  - tool: "transfer"
    when: [{ arg: /amount, gt: 1000 }]
    action: require_approval
  - tool: "transfer"
    when: [{ arg: /currency, equals: "EUR" }, { arg: /amount, lte: 1000 }]
    action: allow
"#;

#[rstest]
// 1. hidden beats everything, including rules and grants
#[case::blacklisted("admin_reset", json!({}), false, true, Outcome::Deny, "hidden: admin_reset matches tool_blacklist admin_*")]
#[case::blacklisted_suffix("db_shutdown", json!({}), true, true, Outcome::Deny, "hidden: db_shutdown matches tool_blacklist *_shutdown")]
// 2. the first matching rule beats grants, require_approval and auto-approval
#[case::rule_deny_beats_grant("delete_file", json!({"path": "/prod/db/main"}), false, true, Outcome::Deny, "matched rule 1: delete_file /path glob /prod/**")]
#[case::rule_beats_auto_approve("read_file", json!({"path": "app/.env"}), false, false, Outcome::RequireApproval, "matched rule 2: read_file /path regex \\.env$")]
#[case::rule_numeric_gt("transfer", json!({"amount": 5000, "currency": "EUR"}), false, false, Outcome::RequireApproval, "matched rule 3: transfer /amount > 1000")]
#[case::rule_all_conditions("transfer", json!({"amount": 20, "currency": "EUR"}), false, false, Outcome::Allow, "matched rule 4: transfer /currency = \"EUR\" /amount <= 1000")]
#[case::rule_condition_unmet("transfer", json!({"amount": 20, "currency": "USD"}), false, false, Outcome::RequireApproval, "approval required by the default of sources.t")]
#[case::rule_missing_argument("delete_file", json!({}), false, false, Outcome::RequireApproval, "delete_file is listed in require_approval")]
// 3. a grant beats require_approval
#[case::grant_beats_require("delete_file", json!({"path": "/tmp/x"}), false, true, Outcome::Allow, "always allowed: delete_file")]
// 4. require_approval beats auto-approval globs and read-only hints
#[case::require_beats_auto("read_secrets", json!({}), true, false, Outcome::RequireApproval, "read_secrets is listed in require_approval")]
// 5. auto-approval
#[case::auto_approved("list_directory", json!({"path": "."}), false, false, Outcome::Allow, "list_directory matches auto_approved_tools list_*")]
#[case::auto_approved_exact("delete_tmp", json!({}), false, false, Outcome::Allow, "delete_tmp matches auto_approved_tools delete_tmp")]
// 6. read-only hints, when trusted
#[case::read_only_hint("get_weather", json!({}), true, false, Outcome::Allow, "get_weather is read-only")]
// 7. the default
#[case::default_fails_closed("get_weather", json!({}), false, false, Outcome::RequireApproval, "approval required by the default of sources.t")]
fn precedence(
    #[case] tool: &str,
    #[case] args: Value,
    #[case] read_only: bool,
    #[case] granted: bool,
    #[case] outcome: Outcome,
    #[case] reason: &str,
) {
    let verdict = decide(&policy(LAYERED), tool, args, read_only, granted);
    assert_eq!(
        (verdict.outcome, verdict.reason.as_str()),
        (outcome, reason)
    );
    assert_eq!(verdict.hidden, reason.starts_with("hidden"));
}

#[rstest]
#[case::include_hides_others("tools: [read_file, write_file]", "delete_file", Outcome::Deny)]
#[case::include_alias("include_tools: [read_file]", "read_file", Outcome::RequireApproval)]
#[case::exclude_alias("exclude_tools: ['*_delete*']", "bucket_delete_all", Outcome::Deny)]
#[case::auto_approve_alias("auto_approve_tools: ['*_get*']", "pod_get_logs", Outcome::Allow)]
#[case::default_allow("default: allow", "anything", Outcome::Allow)]
#[case::hints_ignored_unless_trusted("{}", "get_weather_ro", Outcome::RequireApproval)]
#[case::rule_without_conditions(
    "rules: [{ tool: 'send_*', action: deny }]",
    "send_email",
    Outcome::Deny
)]
#[case::glob_star_stays_in_segment(
    "rules: [{ tool: x, when: [{ arg: /p, glob: '/tmp/*' }], action: allow }]",
    "x",
    Outcome::RequireApproval
)]
fn keys(#[case] yaml: &str, #[case] tool: &str, #[case] outcome: Outcome) {
    let args = json!({"p": "/tmp/a/b"});
    assert_eq!(
        decide(&policy(yaml), tool, args, true, false).outcome,
        outcome
    );
}

#[test]
fn hidden_tools_are_not_visible() {
    let p = policy("tools: [read_file]\ntool_blacklist: ['read_*_secret']");
    assert!(p.is_visible("read_file"));
    assert!(!p.is_visible("write_file"));
    assert!(!p.is_visible("read_file_secret"));
}

#[rstest]
#[case::bad_glob(
    "tool_blacklist: ['ok', 'a[']",
    "sources.t.tool_blacklist[1]",
    "bad glob `a[`"
)]
#[case::bad_auto_glob(
    "auto_approved_tools: ['{a']",
    "sources.t.auto_approved_tools[0]",
    "bad glob"
)]
#[case::require_not_included(
    "tools: [a]\nrequire_approval: [a, b]",
    "sources.t.require_approval[1]",
    "`b` is not in this source's tools list"
)]
#[case::bad_regex(
    "rules: [{ tool: x, when: [{ arg: /p, regex: '(' }], action: deny }]",
    "sources.t.rules[0].when[0]",
    "regex"
)]
#[case::two_tests(
    "rules: [{ tool: x, when: [{ arg: /p, glob: a, equals: b }], action: deny }]",
    "sources.t.rules[0].when[0]",
    "exactly one"
)]
#[case::no_test(
    "rules: [{ tool: x, when: [{ arg: /p }], action: deny }]",
    "sources.t.rules[0].when[0]",
    "needs one of"
)]
#[case::not_a_pointer(
    "rules: [{ tool: x, when: [{ arg: p, equals: 1 }], action: deny }]",
    "sources.t.rules[0].when[0]",
    "JSON pointer"
)]
fn invalid_policies_name_the_key(#[case] yaml: &str, #[case] key: &str, #[case] problem: &str) {
    let config: PolicyConfig = serde_yaml::from_str(yaml).unwrap();
    let e = config.compile("test.yaml", "sources.t").unwrap_err();
    assert_eq!(e.file, "test.yaml");
    assert_eq!(e.key, key);
    assert!(e.problem.contains(problem), "{e}");
}

#[test]
fn unknown_keys_are_refused_with_file_and_key() {
    let e = Config::parse(
        "airlock.yaml",
        "sources:\n  fs:\n    command: x\n    auto_aproved_tools: [a]\n",
    )
    .unwrap_err();
    assert_eq!(e.file, "airlock.yaml");
    assert_eq!(e.key, "sources.fs.auto_aproved_tools");
    assert!(e.problem.contains("auto_aproved_tools"), "{e}");
    let e = Config::parse("airlock.yaml", "approvals:\n  expires_after: soon\n").unwrap_err();
    assert_eq!(e.key, "approvals.expires_after");
    let e = Config::parse("airlock.yaml", "polices: {}\n").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("airlock.yaml:1:1: polices: unknown key `polices`"),
        "{e}"
    );
}

/// The example configuration of seed 002, as written there.
const SEED_002: &str = r#"
sources:
  mcp-duplo:
    url: https://mcp.example.internal
    path: /mcp
    transport_type: http
    tool_blacklist:
      - "*_delete*"
      - "*_terminate*"
      - "*_shutdown*"
      - "admin_*"
      - "*_update*"
    auto_approved_tools:
      - "*_list*"
      - "*_find*"
      - "*_get*"
      - "*_search*"
      - "*_export*"
      - "*_logs*"
      - "*_pods*"
      - "*_info*"
      - "*_billing*"
      - "*_faults*"
      - "*_status*"
      - "*_config*"
      - "*_region*"
      - "*_describe*"
      - "*_show*"
      - "*_view*"
      - "jit_token"
      - "jit_gcp"
      - "jit_aws"
      - "jit_web"
      - "jit_k8s"
      - "jit_k8s_context"
      - "system_*"
"#;

#[test]
fn the_seed_002_example_classifies_tools_as_designed() {
    let config = Config::parse("seed-002.yaml", SEED_002).unwrap();
    let source = &config.sources["mcp-duplo"];
    assert_eq!(
        source.connection,
        Connection::Http {
            url: "https://mcp.example.internal/mcp".into(),
            ca_cert: None,
        }
    );
    let expected = [
        ("tenant_delete_service", Outcome::Deny),
        ("host_terminate", Outcome::Deny),
        ("node_shutdown_now", Outcome::Deny),
        ("admin_reset_password", Outcome::Deny),
        ("service_update_image", Outcome::Deny),
        ("tenant_list_services", Outcome::Allow),
        ("service_get_logs", Outcome::Allow),
        ("k8s_pods_restart", Outcome::Allow),
        ("jit_k8s_context", Outcome::Allow),
        ("jit_k8s", Outcome::Allow),
        ("system_health", Outcome::Allow),
        ("billing_summary", Outcome::RequireApproval),
        ("service_restart", Outcome::RequireApproval),
        ("jit_azure", Outcome::RequireApproval),
        ("scale_deployment", Outcome::RequireApproval),
    ];
    for (tool, outcome) in expected {
        let verdict = decide(&source.policy, tool, json!({}), false, false);
        assert_eq!(verdict.outcome, outcome, "{tool}: {}", verdict.reason);
    }
    // A blacklisted tool is hidden, not merely refused.
    assert!(!source.policy.is_visible("tenant_delete_service"));
    // Sources without a block use the default policy, which fails closed.
    assert_eq!(
        decide(
            config.policy_for("unknown"),
            "anything",
            json!({}),
            false,
            false
        )
        .outcome,
        Outcome::RequireApproval
    );
}

#[rstest]
#[case("24h", Some(86_400))]
#[case("30m", Some(1_800))]
#[case("90s", Some(90))]
#[case("2d", Some(172_800))]
#[case("none", None)]
fn expiries_parse(#[case] text: &str, #[case] seconds: Option<u64>) {
    let parsed = crate::policy::duration::parse_expiry(text).unwrap();
    assert_eq!(parsed.map(|d| d.as_secs()), seconds);
}

#[rstest]
#[case("366d")]
#[case("8785h")]
// Found by the config fuzz target: n * 3600 overflowed.
#[case("122222222222222222h")]
#[case("18446744073709551615s")]
#[case("0m")]
fn expiries_out_of_range_are_refused(#[case] text: &str) {
    assert!(
        crate::policy::duration::parse_expiry(text).is_err(),
        "{text}"
    );
}

#[test]
fn a_year_is_the_longest_expiry() {
    let parsed = crate::policy::duration::parse_expiry("365d").unwrap();
    assert_eq!(parsed.map(|d| d.as_secs()), Some(365 * 86_400));
}

#[test]
fn stdio_sources_keep_their_command() {
    let config = Config::parse("a.yaml", "sources:\n  fs:\n    command: npx\n    args: [-y, pkg]\n    require_approval: [write_file]\n").unwrap();
    assert!(
        matches!(&config.sources["fs"].connection, Connection::Stdio { command, args, .. } if command == "npx" && args.len() == 2)
    );
    assert_eq!(
        config.approvals.expires_after.map(|d| d.as_secs()),
        Some(86_400)
    );
}

#[test]
fn an_http_source_may_name_a_ca_of_its_own_and_a_stdio_source_may_not() {
    let config = Config::parse(
        "a.yaml",
        "sources:\n  tools:\n    url: https://mcp.internal/mcp\n    ca_cert: /etc/airlock/ca.pem\n",
    )
    .unwrap();
    assert_eq!(
        config.sources["tools"].connection,
        Connection::Http {
            url: "https://mcp.internal/mcp".into(),
            ca_cert: Some("/etc/airlock/ca.pem".into()),
        }
    );
    // A relative path is read next to the configuration.
    let config = Config::parse(
        "/etc/airlock/airlock.yaml",
        "sources:\n  tools:\n    url: https://mcp.internal/mcp\n    ca_cert: certs/ca.pem\n",
    )
    .unwrap();
    assert!(matches!(
        &config.sources["tools"].connection,
        Connection::Http { ca_cert: Some(path), .. } if path == std::path::Path::new("/etc/airlock/certs/ca.pem")
    ));
    let e = Config::parse(
        "a.yaml",
        "sources:\n  fs:\n    command: npx\n    ca_cert: /etc/airlock/ca.pem\n",
    )
    .unwrap_err();
    assert_eq!(e.key, "sources.fs.ca_cert");
    assert!(e.problem.contains("url"), "{}", e.problem);
}

#[test]
fn gateway_keys_are_hashes_and_name_their_client() {
    // SHA-256 of "test".
    let yaml = "gateway:\n  api_keys:\n    - name: builder\n      sha256: 9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08\n";
    let config = Config::parse("airlock.yaml", yaml).unwrap();
    assert_eq!(config.gateway.client_for("test"), Some("builder"));
    assert_eq!(config.gateway.client_for("tesT"), None);
    assert_eq!(Config::default().gateway.client_for("test"), None);
    let e = Config::parse(
        "airlock.yaml",
        "gateway:\n  api_keys:\n    - name: builder\n      sha256: test\n",
    )
    .unwrap_err();
    assert_eq!(e.key, "gateway.api_keys[0].sha256");
}
