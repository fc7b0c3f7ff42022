//! `airlock import kagent FILE`: kagent `Agent` resources (and the MCP
//! servers they name, when the file holds them) as Airlock sources whose
//! policy asks for the same approvals. kagent offers an agent the tools in
//! `toolNames`, asks a person before those in `requireApproval` and runs
//! the rest: each referenced server becomes a block with `tools`,
//! `require_approval` and `default: allow`. Pure: text in, YAML out.

use std::collections::BTreeMap;

use serde_yaml::Value;

use super::suggest::quoted;
use super::Config;

/// Why a file could not be imported.
#[derive(Debug, thiserror::Error)]
pub enum KagentError {
    #[error("{file} is not YAML: {message}")]
    NotYaml { file: String, message: String },
    #[error("{file} holds no kagent Agent (kind: Agent or SandboxAgent, apiVersion kagent.dev/…)")]
    NoAgent { file: String },
    #[error("the configuration made from {file} does not parse ({message}); please report this")]
    Unusable { file: String, message: String },
}

/// One MCP server as the agents name it: the tools they are offered and
/// those a person approves.
#[derive(Debug, Default)]
struct Server {
    tools: Vec<String>,
    /// Whether an agent is offered all its tools (no `toolNames`).
    all_tools: bool,
    approval: Vec<String>,
    /// The agents that use it, for the comment above its block.
    agents: Vec<String>,
}

/// The Airlock configuration that asks for the approvals `text`'s agents
/// ask for, with comments on what it could not carry over.
pub fn import(file: &str, text: &str) -> Result<String, KagentError> {
    let resources = documents(file, text)?;
    let mut servers: BTreeMap<String, Server> = BTreeMap::new();
    let mut notes = Vec::new();
    let mut agents = 0;
    for agent in resources.iter().filter(|r| is_agent(r)) {
        agents += 1;
        let name = text_at(agent, &["metadata", "name"]).unwrap_or("(unnamed)");
        let spec = &agent["spec"];
        if spec["type"].as_str() == Some("BYO") {
            notes.push(format!("agent {name} is BYO: its own image decides its tools, so nothing of it is imported"));
        }
        // v1alpha2 and later keep tools under `declarative`; v1alpha1 at the top.
        let tools = spec["declarative"]["tools"]
            .as_sequence()
            .or(spec["tools"].as_sequence());
        for tool in tools.into_iter().flatten() {
            let server = &tool["mcpServer"];
            let Some(reference) = server["name"].as_str().or(server["toolServer"].as_str()) else {
                if let Some(other) =
                    text_at(tool, &["agent", "name"]).or(tool["agent"]["ref"].as_str())
                {
                    notes.push(format!("agent {name} calls agent {other} as a tool: Airlock does not call agents as tools"));
                }
                continue;
            };
            let reference = reference.rsplit('/').next().unwrap_or(reference).to_owned();
            let entry = servers.entry(reference).or_default();
            let names = strings(&server["toolNames"]);
            entry.all_tools |= names.is_empty();
            add(&mut entry.tools, names);
            add(&mut entry.approval, strings(&server["requireApproval"]));
            if !entry.agents.iter().any(|a| a == name) {
                entry.agents.push(name.to_owned());
            }
            if tool.get("headersFrom").is_some() {
                notes.push(format!(
                    "agent {name} sends headers to {}: Airlock sends none to MCP servers",
                    server["name"].as_str().unwrap_or_default()
                ));
            }
        }
    }
    if agents == 0 {
        return Err(KagentError::NoAgent {
            file: file.to_owned(),
        });
    }
    let mut yaml = format!("# Made by `airlock import kagent` from {file}.\n");
    for note in &notes {
        yaml.push_str(&format!("# Note: {note}.\n"));
    }
    yaml.push_str("sources:\n");
    for (name, server) in &servers {
        yaml.push_str(&block(name, server, find(&resources, name)));
    }
    if servers.is_empty() {
        yaml.push_str("  {}\n");
    }
    Config::parse(file, &yaml).map_err(|e| KagentError::Unusable {
        file: file.to_owned(),
        message: e.to_string(),
    })?;
    Ok(yaml)
}

/// The resources of every document, a `List`'s items each on their own.
fn documents(file: &str, text: &str) -> Result<Vec<Value>, KagentError> {
    let mut resources = Vec::new();
    for document in serde_yaml::Deserializer::from_str(text) {
        let value = serde::Deserialize::deserialize(document).map_err(|e: serde_yaml::Error| {
            KagentError::NotYaml {
                file: file.to_owned(),
                message: e.to_string(),
            }
        })?;
        match value {
            Value::Mapping(_) if value["kind"].as_str() == Some("List") => {
                resources.extend(value["items"].as_sequence().cloned().unwrap_or_default());
            }
            Value::Null => {}
            value => resources.push(value),
        }
    }
    Ok(resources)
}

fn is_agent(resource: &Value) -> bool {
    let kind = resource["kind"].as_str();
    let group = resource["apiVersion"].as_str().unwrap_or_default();
    matches!(kind, Some("Agent" | "SandboxAgent")) && group.starts_with("kagent.dev/")
}

/// The MCP server resource named `name` in the file, if it is there.
fn find<'a>(resources: &'a [Value], name: &str) -> Option<&'a Value> {
    resources.iter().find(|r| {
        let kind = r["kind"].as_str().unwrap_or_default();
        let servers = ["RemoteMCPServer", "MCPServer", "Service", "ToolServer"];
        servers.contains(&kind) && text_at(r, &["metadata", "name"]) == Some(name)
    })
}

fn text_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(value, |v, key| v.get(key))?.as_str()
}

/// Adds the `names` not in `list` yet.
fn add(list: &mut Vec<String>, names: Vec<String>) {
    for name in names {
        if !list.contains(&name) {
            list.push(name);
        }
    }
}

fn strings(value: &Value) -> Vec<String> {
    let items = value.as_sequence().into_iter().flatten();
    items
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| quoted(i)).collect();
    format!("[{}]", quoted.join(", "))
}

/// The block of server `name`: its connection (from its resource, when the
/// file holds it) and the policy its agents' approvals make.
fn block(name: &str, server: &Server, resource: Option<&Value>) -> String {
    let mut text = format!(
        "  # used by {}\n  {}:\n",
        server.agents.join(", "),
        quoted(name)
    );
    text.push_str(&connection(name, resource));
    if !server.all_tools {
        let tools = list(&server.tools);
        text.push_str(&format!("    tools: {tools}   # kagent's toolNames\n"));
    }
    if !server.approval.is_empty() {
        text.push_str(&format!(
            "    require_approval: {}   # kagent's requireApproval\n",
            list(&server.approval)
        ));
    }
    text.push_str("    default: allow   # kagent runs the tools it does not ask about\n");
    text
}

/// How Airlock reaches the server: a command for a kmcp stdio server, a URL
/// for the others, `policy_only` when the file does not say.
fn connection(name: &str, resource: Option<&Value>) -> String {
    let Some(r) = resource else {
        return format!("    policy_only: true   # {name} is not in the file: give its `url:` or `command:` instead\n");
    };
    let spec = &r["spec"];
    let namespace = text_at(r, &["metadata", "namespace"]).unwrap_or("default");
    match r["kind"].as_str().unwrap_or_default() {
        "RemoteMCPServer" => {
            let url = spec["url"].as_str().unwrap_or_default();
            let mut text = format!("    url: {}\n", quoted(url));
            if spec["protocol"].as_str() == Some("SSE") {
                text.push_str("    # kagent speaks SSE to it: Airlock speaks streamable HTTP, which the server must offer\n");
            }
            if spec.get("headersFrom").is_some() {
                text.push_str("    # its headersFrom are not carried over: Airlock sends no headers to MCP servers\n");
            }
            text
        }
        "MCPServer" if spec["transportType"].as_str() != Some("http") => {
            let deployment = &spec["deployment"];
            let mut text = format!(
                "    command: {}\n",
                quoted(deployment["cmd"].as_str().unwrap_or_default())
            );
            let args = strings(&deployment["args"]);
            if !args.is_empty() {
                text.push_str(&format!("    args: {}\n", list(&args)));
            }
            if let Some(env) = deployment["env"].as_mapping().filter(|e| !e.is_empty()) {
                let pairs: Vec<String> = env
                    .iter()
                    .filter_map(|(k, v)| {
                        Some(format!("{}: {}", quoted(k.as_str()?), quoted(v.as_str()?)))
                    })
                    .collect();
                text.push_str(&format!("    env: {{{}}}\n", pairs.join(", ")));
            }
            text
        }
        kind => {
            // An HTTP server in the cluster: the address its Service has there.
            let port = spec["deployment"]["port"]
                .as_u64()
                .or_else(|| {
                    r["metadata"]["annotations"]["kagent.dev/mcp-service-port"]
                        .as_str()?
                        .parse()
                        .ok()
                })
                .or_else(|| spec["ports"][0]["port"].as_u64())
                .unwrap_or(80);
            let path = r["metadata"]["annotations"]["kagent.dev/mcp-service-path"]
                .as_str()
                .or(spec["httpTransport"]["path"].as_str())
                .unwrap_or("/mcp");
            let url = format!("http://{name}.{namespace}:{port}{path}");
            format!(
                "    url: {}   # the {kind}'s address inside the cluster\n",
                quoted(&url)
            )
        }
    }
}

#[cfg(test)]
mod tests;
