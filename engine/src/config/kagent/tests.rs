use serde_json::json;

use super::*;
use crate::config::policy_cases::{Expect, PolicyCall};

/// kagent's own test input for `requireApproval` (its translator's
/// `agent_with_require_approval.yaml`, as a `List`, with `type:` spelt as
/// the CRD takes it).
const APPROVALS: &str = r#"
apiVersion: v1
kind: List
items:
  - apiVersion: kagent.dev/v1alpha2
    kind: Agent
    metadata:
      name: agent
      namespace: test
    spec:
      type: Declarative
      declarative:
        systemMessage: You help users manage files.
        modelConfig: test-model
        tools:
          - type: McpServer
            mcpServer:
              name: toolserver
              kind: Service
              toolNames: [read_file, write_file, delete_file]
              requireApproval: [delete_file, write_file]
  - apiVersion: v1
    kind: Service
    metadata:
      name: toolserver
      annotations:
        kagent.dev/mcp-service-path: "/mcp"
      namespace: test
    spec:
      ports:
      - name: mcp
        port: 8084
        appProtocol: mcp
"#;

fn verdict(config: &Config, source: &str, tool: &str) -> Expect {
    let call = PolicyCall {
        source: source.into(),
        tool: tool.into(),
        args: json!({}),
        read_only: false,
        caller: None,
        at: None,
    };
    Expect::of(&config.check(&call))
}

#[test]
fn an_agents_approvals_become_its_servers_policy() {
    let yaml = import("agent.yaml", APPROVALS).unwrap();
    let config = Config::parse("airlock.yaml", &yaml).unwrap();
    assert_eq!(verdict(&config, "toolserver", "read_file"), Expect::Allow);
    assert_eq!(verdict(&config, "toolserver", "write_file"), Expect::Ask);
    assert_eq!(verdict(&config, "toolserver", "delete_file"), Expect::Ask);
    // A tool kagent does not offer the agent is not offered here either.
    assert_eq!(verdict(&config, "toolserver", "move_file"), Expect::Hidden);
    assert!(
        yaml.contains("url: \"http://toolserver.test:8084/mcp\""),
        "{yaml}"
    );
}

#[test]
fn servers_in_the_file_are_connected_and_others_named_for_the_operator() {
    let file = r#"
apiVersion: kagent.dev/v1alpha1
kind: MCPServer
metadata: {name: everything, namespace: kagent}
spec:
  deployment:
    port: 3000
    cmd: npx
    args: ["-y", "@modelcontextprotocol/server-everything"]
    env: {LOG_LEVEL: debug}
  transportType: stdio
---
apiVersion: kagent.dev/v1alpha2
kind: RemoteMCPServer
metadata: {name: shared-tools, namespace: tools-ns}
spec:
  description: Shared tools
  url: http://tools.tools-ns.svc:8080/mcp
  headersFrom:
    - name: Authorization
      valueFrom: {type: Secret, name: tool-auth, key: token}
---
apiVersion: kagent.dev/v1alpha2
kind: Agent
metadata: {name: helper, namespace: source-ns}
spec:
  type: Declarative
  declarative:
    tools:
      - type: McpServer
        mcpServer: {name: everything, kind: MCPServer, toolNames: [echo, add], requireApproval: [add]}
      - type: McpServer
        mcpServer: {name: shared-tools, namespace: tools-ns, kind: RemoteMCPServer}
      - type: McpServer
        mcpServer: {name: elsewhere, kind: RemoteMCPServer, toolNames: [lookup]}
      - type: Agent
        agent: {name: tools-agent, namespace: tools-ns}
"#;
    let yaml = import("agents.yaml", file).unwrap();
    assert!(yaml.contains("command: \"npx\""), "{yaml}");
    assert!(yaml.contains("env: {\"LOG_LEVEL\": \"debug\"}"), "{yaml}");
    assert!(
        yaml.contains("url: \"http://tools.tools-ns.svc:8080/mcp\""),
        "{yaml}"
    );
    assert!(yaml.contains("headersFrom are not carried over"), "{yaml}");
    assert!(
        yaml.contains("policy_only: true   # elsewhere is not in the file"),
        "{yaml}"
    );
    assert!(yaml.contains("calls agent tools-agent as a tool"), "{yaml}");
    let config = Config::parse("airlock.yaml", &yaml).unwrap();
    assert_eq!(verdict(&config, "everything", "echo"), Expect::Allow);
    assert_eq!(verdict(&config, "everything", "add"), Expect::Ask);
    // No toolNames: every tool of the server, none asked about.
    assert_eq!(verdict(&config, "shared-tools", "anything"), Expect::Allow);
    assert_eq!(verdict(&config, "elsewhere", "lookup"), Expect::Allow);
}

#[test]
fn two_agents_on_one_server_keep_every_approval_either_asked_for() {
    let agent = |name: &str, tools: &str, approval: &str| {
        format!("apiVersion: kagent.dev/v1alpha2\nkind: Agent\nmetadata: {{name: {name}}}\nspec:\n  declarative:\n    tools:\n      - type: McpServer\n        mcpServer: {{name: fs, toolNames: {tools}, requireApproval: {approval}}}\n")
    };
    let file = format!(
        "{}---\n{}",
        agent("a", "[read_file, write_file]", "[write_file]"),
        agent("b", "[read_file, delete_file]", "[delete_file]")
    );
    let config = Config::parse("airlock.yaml", &import("two.yaml", &file).unwrap()).unwrap();
    assert_eq!(verdict(&config, "fs", "read_file"), Expect::Allow);
    assert_eq!(verdict(&config, "fs", "write_file"), Expect::Ask);
    assert_eq!(verdict(&config, "fs", "delete_file"), Expect::Ask);
}

#[test]
fn a_file_without_an_agent_or_not_yaml_is_refused_saying_so() {
    let service = "apiVersion: v1\nkind: Service\nmetadata: {name: x}\n";
    let none = import("svc.yaml", service).unwrap_err().to_string();
    assert!(none.contains("svc.yaml holds no kagent Agent"), "{none}");
    let broken = import("bad.yaml", "kind: [Agent\n")
        .unwrap_err()
        .to_string();
    assert!(broken.starts_with("bad.yaml is not YAML"), "{broken}");
}
