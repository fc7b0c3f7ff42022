//! Policy evaluations per second: a configuration of 50 sources with 10
//! rules each (500 rules: globs, a regular expression, equality and number
//! tests on arguments), tool lists and defaults, deciding a mix of calls
//! that reach every level of the precedence, on one thread. Then the same
//! with a shadow policy deciding each call beside it, as `shadow_policy`
//! makes every live call do. Target: at least 1,000,000 evaluations per
//! second on one core. `make bench` runs it and writes
//! `target/bench/policy.json`.

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
fn rate(config: &Config, calls: &[(String, &str, Value)], shadow: bool) -> f64 {
    let started = Instant::now();
    for n in 0..EVALUATIONS {
        let (source, tool, arguments) = &calls[n % calls.len()];
        let facts = CallFacts {
            source,
            tool,
            arguments,
            read_only_hint: false,
            granted: false,
            caller: None,
            at: chrono::DateTime::UNIX_EPOCH,
        };
        let verdict = config.policy_for(source).decide(facts);
        if shadow {
            black_box(config.shadow_verdict(source, facts, &verdict));
        }
        black_box(verdict);
    }
    EVALUATIONS as f64 / started.elapsed().as_secs_f64()
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
    rate(&config, &calls, false);
    let plain = rate(&config, &calls, false);
    let candidate = Config::parse(
        "candidate.yaml",
        &yaml.replace("action: deny", "action: require_approval"),
    )
    .unwrap();
    let shadowed = config.clone().with_shadow("bench.yaml", candidate).unwrap();
    let with_shadow = rate(&shadowed, &calls, true);
    println!(
        "policy evaluation, {SOURCES} sources, {rules} rules, {EVALUATIONS} calls on one thread"
    );
    println!("{:>12.0} evaluations/s  (target ≥ 1,000,000)", plain);
    println!(
        "{:>12.0} evaluations/s with a shadow policy deciding each call too",
        with_shadow
    );
    write_json(
        "policy",
        &json!({
            "sources": SOURCES,
            "rules": rules,
            "evaluations_per_second": plain,
            "with_shadow_per_second": with_shadow,
        }),
    );
}
