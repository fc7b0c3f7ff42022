//! Policy evaluations per second: a configuration of 50 sources with 10
//! rules each (500 rules: globs, a regular expression, equality and number
//! tests on arguments), tool lists and defaults, deciding a mix of calls
//! that reach every level of the precedence, on one thread. Then the same
//! with a shadow policy deciding each call beside it, as `shadow_policy`
//! makes every live call do. Target: at least 1,000,000 evaluations per
//! second on one core. Then the same ten rules per source as 500 Cedar
//! policies (target 100,000 a second) and as 500 Rego rules (20,000), in a
//! top-level `policy:` over blocks with no rules of their own. `make bench`
//! runs it and writes `target/bench/policy.json`.

mod common;

use std::hint::black_box;
use std::time::Instant;

use engine::config::Config;
use engine::policy::CallFacts;
use serde_json::{json, Value};

use common::write_json;

const SOURCES: usize = 50;
const EVALUATIONS: usize = 2_000_000;

/// Source `i`'s block: its tool lists and its 10 rules.
fn block(i: usize) -> String {
    format!(
        r#"  s{i:02}:
    policy_only: true
    tool_blacklist: ["*_admin"]
    require_approval: [delete_file, deploy]
    auto_approved_tools: ["read_*", "list_*"]
    rules:
      - {{ tool: write_file, when: [{{ arg: /path, glob: "/srv/s{i}/tmp/**" }}], action: allow }}
      - {{ tool: write_file, when: [{{ arg: /path, glob: "/etc/**" }}], action: deny }}
      - {{ tool: "send_*", when: [{{ arg: /to, regex: "^[a-z.]+@example\\.com$" }}], action: allow }}
      - {{ tool: transfer, when: [{{ arg: /amount, gt: 1000 }}], action: require_approval }}
      - {{ tool: transfer, when: [{{ arg: /amount, lte: 10 }}], action: allow }}
      - {{ tool: deploy, when: [{{ arg: /env, equals: "prod" }}], action: require_approval }}
      - {{ tool: deploy, when: [{{ arg: /env, equals: "dev" }}], action: allow }}
      - {{ tool: "db_*", when: [{{ arg: /query, glob: "select *" }}], action: allow }}
      - {{ tool: "db_*", action: deny }}
      - {{ tool: "shell_*", when: [{{ arg: /command, glob: "rm *" }}], action: deny }}
"#
    )
}

/// The calls decided, in turn: every level of the precedence is reached.
fn calls() -> Vec<(String, &'static str, Value)> {
    let mut calls = Vec::new();
    for i in 0..SOURCES {
        let source = format!("s{i:02}");
        let mixed: [(&str, Value); 10] = [
            (
                "write_file",
                json!({ "path": format!("/srv/s{i}/tmp/a.txt") }),
            ),
            ("write_file", json!({ "path": "/etc/passwd" })),
            ("send_email", json!({ "to": "ana@example.com" })),
            ("transfer", json!({ "amount": 5000 })),
            ("deploy", json!({ "env": "dev" })),
            ("db_query", json!({ "query": "drop table calls" })),
            ("read_file", json!({ "path": "/srv/notes.txt" })),
            ("delete_file", json!({ "path": "/srv/notes.txt" })),
            ("server_admin", json!({})),
            ("unlisted_tool", json!({ "x": 1 })),
        ];
        calls.extend(
            mixed
                .into_iter()
                .map(|(tool, args)| (source.clone(), tool, args)),
        );
    }
    calls
}

/// Evaluations per second deciding `calls` under `config`, with the shadow
/// verdict too when `shadow`.
fn rate(config: &Config, calls: &[(String, &str, Value)], shadow: bool, evaluations: usize) -> f64 {
    let started = Instant::now();
    for n in 0..evaluations {
        let (source, tool, arguments) = &calls[n % calls.len()];
        let facts = CallFacts::new(source, tool, arguments);
        let verdict = config.policy_for(source).decide(facts);
        if shadow {
            black_box(config.shadow_verdict(source, facts, &verdict));
        }
        black_box(verdict);
    }
    evaluations as f64 / started.elapsed().as_secs_f64()
}

/// Source `i`'s ten rules as Cedar policies.
fn cedar(i: usize) -> String {
    let scope = format!("principal, action == Action::\"call\", resource in Source::\"s{i:02}\"");
    let has = |arg: &str| format!("context.arguments has {arg} && context.arguments.{arg}");
    [
        format!("permit ({scope}) when {{ resource.name == \"write_file\" && {} like \"/srv/s{i}/tmp/*\" }};", has("path")),
        format!("forbid ({scope}) when {{ resource.name == \"write_file\" && {} like \"/etc/*\" }};", has("path")),
        format!("permit ({scope}) when {{ resource.name like \"send_*\" && {} like \"*@example.com\" }};", has("to")),
        format!("@airlock(\"ask\")\npermit ({scope}) when {{ resource.name == \"transfer\" && {} > 1000 }};", has("amount")),
        format!("permit ({scope}) when {{ resource.name == \"transfer\" && {} <= 10 }};", has("amount")),
        format!("@airlock(\"ask\")\npermit ({scope}) when {{ resource.name == \"deploy\" && {} == \"prod\" }};", has("env")),
        format!("permit ({scope}) when {{ resource.name == \"deploy\" && {} == \"dev\" }};", has("env")),
        format!("permit ({scope}) when {{ resource.name like \"db_*\" && {} like \"select *\" }};", has("query")),
        format!("forbid ({scope}) when {{ resource.name like \"db_*\" }} unless {{ {} like \"select *\" }};", has("query")),
        format!("forbid ({scope}) when {{ resource.name like \"shell_*\" && {} like \"rm *\" }};", has("command")),
    ]
    .join("\n")
}

/// Source `i`'s ten rules as Rego rules, each call matching at most one.
fn rego(i: usize) -> String {
    let on = |tool: &str| format!("input.source == \"s{i:02}\"\n\t{tool}");
    [
        format!("decision := \"allow\" if {{\n\t{}\n\tstartswith(input.arguments.path, \"/srv/s{i}/tmp/\")\n}}", on("input.tool == \"write_file\"")),
        format!("decision := \"deny\" if {{\n\t{}\n\tstartswith(input.arguments.path, \"/etc/\")\n}}", on("input.tool == \"write_file\"")),
        format!("decision := \"allow\" if {{\n\t{}\n\tendswith(input.arguments.to, \"@example.com\")\n}}", on("startswith(input.tool, \"send_\")")),
        format!("decision := \"ask\" if {{\n\t{}\n\tinput.arguments.amount > 1000\n}}", on("input.tool == \"transfer\"")),
        format!("decision := \"allow\" if {{\n\t{}\n\tinput.arguments.amount <= 10\n}}", on("input.tool == \"transfer\"")),
        format!("decision := \"ask\" if {{\n\t{}\n\tinput.arguments.env == \"prod\"\n}}", on("input.tool == \"deploy\"")),
        format!("decision := \"allow\" if {{\n\t{}\n\tinput.arguments.env == \"dev\"\n}}", on("input.tool == \"deploy\"")),
        format!("decision := \"allow\" if {{\n\t{}\n\tstartswith(input.arguments.query, \"select \")\n}}", on("startswith(input.tool, \"db_\")")),
        format!("decision := \"deny\" if {{\n\t{}\n\tnot startswith(input.arguments.query, \"select \")\n}}", on("startswith(input.tool, \"db_\")")),
        format!("decision := \"deny\" if {{\n\t{}\n\tstartswith(input.arguments.command, \"rm \")\n}}", on("startswith(input.tool, \"shell_\")")),
    ]
    .join("\n\n")
}

/// The configuration of 50 blocks with the lists but not the rules of
/// [`block`], under a top-level code policy
/// (`key: file`) holding `text`, in `dir`.
fn coded(dir: &std::path::Path, key: &str, file: &str, text: &str) -> Config {
    std::fs::write(dir.join(file), text).unwrap();
    let mut yaml = format!("policy: {{{key}: {file}}}\nsources:\n");
    for i in 0..SOURCES {
        yaml.push_str(&format!(
            "  s{i:02}:\n    policy_only: true\n    tool_blacklist: [\"*_admin\"]\n    require_approval: [delete_file, deploy]\n    auto_approved_tools: [\"read_*\", \"list_*\"]\n"
        ));
    }
    let file = dir.join("bench.yaml").display().to_string();
    Config::parse(&file, &yaml).unwrap_or_else(|e| panic!("{e}"))
}

fn main() {
    let mut yaml = String::from("sources:\n");
    for i in 0..SOURCES {
        yaml.push_str(&block(i));
    }
    let config = Config::parse("bench.yaml", &yaml).unwrap();
    let rules: usize = config
        .sources
        .values()
        .map(|s| s.policy_config.rules.len())
        .sum();
    assert_eq!(rules, SOURCES * 10);
    let calls = calls();
    // Warm the caches before measuring.
    rate(&config, &calls, false, EVALUATIONS);
    let plain = rate(&config, &calls, false, EVALUATIONS);
    let candidate = Config::parse(
        "candidate.yaml",
        &yaml.replace("action: deny", "action: require_approval"),
    )
    .unwrap();
    let shadowed = config.clone().with_shadow("bench.yaml", candidate).unwrap();
    let with_shadow = rate(&shadowed, &calls, true, EVALUATIONS);
    let dir = tempfile::tempdir().unwrap();
    let cedar_text: Vec<String> = (0..SOURCES).map(cedar).collect();
    let cedar_config = coded(dir.path(), "cedar", "bench.cedar", &cedar_text.join("\n"));
    let rego_text: Vec<String> = (0..SOURCES).map(rego).collect();
    let rego_module = format!("package airlock\n\n{}\n", rego_text.join("\n\n"));
    let rego_config = coded(dir.path(), "rego", "bench.rego", &rego_module);
    // The three say the same of every call, but for the denied admin tool.
    for (source, tool, arguments) in &calls {
        let facts = CallFacts::new(source, tool, arguments);
        let yaml = config.policy_for(source).decide(facts).outcome;
        let by_cedar = cedar_config.policy_for(source).decide(facts);
        let by_rego = rego_config.policy_for(source).decide(facts);
        assert_eq!(
            by_cedar.outcome, by_rego.outcome,
            "{tool}: {by_cedar:?} {by_rego:?}"
        );
        if !by_cedar.hidden {
            assert_eq!(yaml, by_cedar.outcome, "{tool}: {by_cedar:?}");
        }
    }
    // Fewer calls than the YAML rows: a code policy is much slower.
    rate(&cedar_config, &calls, false, 2_000);
    let with_cedar = rate(&cedar_config, &calls, false, 50_000);
    rate(&rego_config, &calls, false, 1_000);
    let with_rego = rate(&rego_config, &calls, false, 20_000);
    println!(
        "policy evaluation, {SOURCES} sources, {rules} rules, {EVALUATIONS} calls on one thread"
    );
    println!("{:>12.0} evaluations/s  (target ≥ 1,000,000)", plain);
    println!(
        "{:>12.0} evaluations/s with a shadow policy deciding each call too",
        with_shadow
    );
    println!("{with_cedar:>12.0} evaluations/s by 500 Cedar policies  (target ≥ 100,000)");
    println!("{with_rego:>12.0} evaluations/s by 500 Rego rules  (target ≥ 20,000)");
    write_json(
        "policy",
        &json!({
            "sources": SOURCES,
            "rules": rules,
            "evaluations_per_second": plain,
            "with_shadow_per_second": with_shadow,
            "cedar_policies": SOURCES * 10,
            "cedar_per_second": with_cedar,
            "rego_rules": SOURCES * 10,
            "rego_per_second": with_rego,
        }),
    );
}
