//! `airlock import kagent`, run as the real binary: a kagent manifest in,
//! a configuration out that `airlock policy check` finds asks for the same
//! approvals; a file without an agent exits 64.

use crate::support::airlock;

const MANIFEST: &str = "apiVersion: kagent.dev/v1alpha2
kind: RemoteMCPServer
metadata: {name: kagent-tool-server, namespace: kagent}
spec:
  description: kagent's tools
  url: http://kagent-tool-server.kagent:8084/mcp
---
apiVersion: kagent.dev/v1alpha2
kind: Agent
metadata: {name: k8s-agent, namespace: kagent}
spec:
  type: Declarative
  declarative:
    modelConfig: default-model-config
    tools:
      - type: McpServer
        mcpServer:
          name: kagent-tool-server
          kind: RemoteMCPServer
          toolNames: [k8s_get_resources, k8s_delete_resource]
          requireApproval: [k8s_delete_resource]
";

#[test]
fn an_imported_kagent_agent_asks_for_what_it_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k8s-agent.yaml"), MANIFEST).unwrap();
    let out = airlock(dir.path(), &["import", "kagent", "k8s-agent.yaml"]);
    let yaml = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{yaml}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        yaml.contains("url: \"http://kagent-tool-server.kagent:8084/mcp\""),
        "{yaml}"
    );
    std::fs::write(dir.path().join("airlock.yaml"), &yaml).unwrap();
    let check = |tool: &str| {
        let words = [
            "policy",
            "check",
            "--config",
            "airlock.yaml",
            "--source",
            "kagent-tool-server",
            "--tool",
            tool,
        ];
        airlock(dir.path(), &words).status.code()
    };
    assert_eq!(check("k8s_get_resources"), Some(0), "allowed");
    assert_eq!(check("k8s_delete_resource"), Some(1), "asks");
    assert_eq!(
        check("k8s_apply_manifest"),
        Some(3),
        "hidden: not in toolNames"
    );
}

#[test]
fn a_file_without_an_agent_exits_64_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("svc.yaml"),
        "apiVersion: v1\nkind: Service\n",
    )
    .unwrap();
    let out = airlock(dir.path(), &["import", "kagent", "svc.yaml"]);
    assert_eq!(out.status.code(), Some(64));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("svc.yaml holds no kagent Agent"),
        "{stderr}"
    );
}
