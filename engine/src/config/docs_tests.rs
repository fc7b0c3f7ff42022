//! Every YAML block of the docs parses as a configuration (a list, as a
//! cases file), with the files the blocks name beside it: a documented
//! example that does not work is a bug.

use rstest::rstest;

use super::Config;

/// An `auth:` block defining the group the docs' examples name, for the
/// examples that show a policy block without one.
const AUTH: &str =
    "auth:\n  passwords: true\n  groups:\n    ops: [ana]\n    finance: [bo]\n    release: [rita]\n";

/// A folder holding the code policies the docs' examples name (the worked
/// example's Cedar and Rego under each name), for their blocks to read.
fn policy_files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let cedar = include_str!("../../../docs/examples/policy/fs.cedar");
    let rego = include_str!("../../../docs/examples/policy/fs.rego");
    let schema = include_str!("../../../docs/examples/policy/airlock.cedarschema");
    for (name, text) in [
        ("filesystem.cedar", cedar),
        ("fs.cedar", cedar),
        ("airlock.cedarschema", schema),
        ("org.rego", rego),
        ("deploys.rego", rego),
        ("fs.rego", rego),
        ("deploys.json", "{\"environments\": [\"prod\"]}"),
    ] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[rstest]
#[case::configuration(include_str!("../../../docs/configuration.md"))]
#[case::policy(include_str!("../../../docs/policy.md"))]
#[case::http_api(include_str!("../../../docs/http-api.md"))]
#[case::readme(include_str!("../../../README.md"))]
#[case::notifications(include_str!("../../../docs/notifications.md"))]
#[case::fuzz_seed(concat!("```yaml\n", include_str!("../../fuzz/seeds/config/full.yaml"), "```\n"))]
fn the_documented_configurations_parse(#[case] markdown: &str) {
    let blocks = yaml_blocks(markdown);
    assert!(!blocks.is_empty());
    let files = policy_files();
    let file = files.path().join("doc.yaml").display().to_string();
    for block in blocks {
        // A list is a file of policy cases (`airlock policy test`).
        if block.starts_with("- ") {
            if let Err(e) = super::policy_cases::read_cases("doc.yaml", &block) {
                panic!("{e}\n{block}");
            }
            continue;
        }
        // The secret the agents' headers take from the environment.
        let block = block.replace("${K8S_AGENT_TOKEN}", "a-token");
        let has_auth = block.lines().any(|l| l.starts_with("auth:"));
        let yaml = if has_auth {
            block
        } else {
            format!("{AUTH}{block}")
        };
        if let Err(e) = Config::parse(&file, &yaml) {
            panic!("{e}\n{yaml}");
        }
    }
}

/// The text of each ```yaml block, its fence's indentation removed.
fn yaml_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<Fence> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            None if trimmed == "```yaml" => {
                open = Some(Fence {
                    indent,
                    text: String::new(),
                })
            }
            None => {}
            Some(fence) if trimmed == "```" => {
                blocks.push(std::mem::take(&mut fence.text));
                open = None;
            }
            Some(fence) => {
                fence.text.push_str(line.get(fence.indent..).unwrap_or(""));
                fence.text.push('\n');
            }
        }
    }
    blocks
}

/// A code block being read: its fence's indentation and its text so far.
struct Fence {
    indent: usize,
    text: String,
}
