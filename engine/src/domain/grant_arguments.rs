//! Which calls of its tool a grant covers: any, the very arguments the
//! card showed, or those whose path lies in the same folder. Pure, so the
//! card's preview and the policy's check read the same rule.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The arguments a grant covers.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GrantArguments {
    /// Every call of the tool.
    #[default]
    Any,
    /// Calls with exactly these arguments.
    Exactly {
        /// The arguments (a JSON object).
        arguments: Value,
    },
    /// Calls whose argument `name` is a path in `folder` or below it (the
    /// other arguments may be anything).
    InFolder {
        /// The top-level argument holding the path.
        name: String,
        /// The folder, ending in `/` (or empty for the workspace's top).
        folder: String,
    },
}

/// What a person may choose on the card; the rule is made from the call's
/// own arguments, never from what the browser sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GrantArgumentChoice {
    /// Any arguments.
    #[default]
    Any,
    /// These exact arguments.
    Exactly,
    /// Paths in the same folder.
    SameFolder,
}

impl GrantArguments {
    /// The rule `choice` makes of a call's `arguments`; `None` when the call
    /// has no path argument to take a folder from.
    pub fn chosen(choice: GrantArgumentChoice, arguments: &Value) -> Option<Self> {
        match choice {
            GrantArgumentChoice::Any => Some(Self::Any),
            GrantArgumentChoice::Exactly => Some(Self::Exactly {
                arguments: arguments.clone(),
            }),
            GrantArgumentChoice::SameFolder => {
                let (name, path) = path_argument(arguments)?;
                let folder = match path.rfind('/') {
                    Some(at) => path[..=at].to_owned(),
                    None => String::new(),
                };
                Some(Self::InFolder {
                    name: name.to_owned(),
                    folder,
                })
            }
        }
    }

    /// Whether a call with `arguments` is covered.
    pub fn covers(&self, arguments: &Value) -> bool {
        match self {
            Self::Any => true,
            Self::Exactly { arguments: granted } => granted == arguments,
            Self::InFolder { name, folder } => arguments
                .get(name)
                .and_then(Value::as_str)
                .is_some_and(|path| in_folder(path, folder)),
        }
    }

    /// The rule in words, for the card's preview and the Allowed page.
    pub fn words(&self) -> String {
        match self {
            Self::Any => "with any arguments".to_owned(),
            Self::Exactly { .. } => "with exactly these arguments".to_owned(),
            Self::InFolder { name, folder } if folder.is_empty() => {
                format!("with `{name}` at the top of the workspace")
            }
            Self::InFolder { name, folder } => format!("with `{name}` in `{folder}` or below"),
        }
    }
}

/// The call's path argument: `path` if it has one, else the first string
/// argument that holds a `/`.
fn path_argument(arguments: &Value) -> Option<(&str, &str)> {
    let object = arguments.as_object()?;
    if let Some(path) = object.get("path").and_then(Value::as_str) {
        return Some(("path", path));
    }
    object.iter().find_map(|(name, v)| {
        v.as_str()
            .filter(|s| s.contains('/'))
            .map(|s| (name.as_str(), s))
    })
}

/// Whether `path` lies in `folder`: it starts with it and never climbs out
/// (`drafts/../secrets` is not in `drafts/`). An empty folder holds only
/// paths without a folder of their own.
fn in_folder(path: &str, folder: &str) -> bool {
    if path.split('/').any(|segment| segment == "..") {
        return false;
    }
    if folder.is_empty() {
        return !path.contains('/');
    }
    path.starts_with(folder) && path.len() > folder.len()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_folder_grant_covers_its_folder_and_below_and_nothing_that_climbs_out() {
        let rule = GrantArguments::chosen(
            GrantArgumentChoice::SameFolder,
            &json!({ "path": "drafts/plan.md" }),
        )
        .unwrap();
        assert_eq!(
            rule,
            GrantArguments::InFolder {
                name: "path".into(),
                folder: "drafts/".into()
            }
        );
        assert_eq!(rule.words(), "with `path` in `drafts/` or below");
        let covers = |path: &str| rule.covers(&json!({ "path": path, "content": "x" }));
        assert!(covers("drafts/other.md"));
        assert!(covers("drafts/2026/notes.md"));
        assert!(!covers("drafts/../notes.txt"));
        assert!(!covers("draftsy/plan.md"));
        assert!(!covers("notes.txt"));
        assert!(!covers("/drafts/plan.md"));
        assert!(!covers("drafts/"));
        assert!(!rule.covers(&json!({ "other": "drafts/plan.md" })));
    }

    #[test]
    fn a_top_level_file_makes_a_rule_for_the_top_level() {
        let rule = GrantArguments::chosen(
            GrantArgumentChoice::SameFolder,
            &json!({ "path": "notes.txt" }),
        )
        .unwrap();
        assert_eq!(rule.words(), "with `path` at the top of the workspace");
        assert!(rule.covers(&json!({ "path": "todo.md" })));
        assert!(!rule.covers(&json!({ "path": "drafts/plan.md" })));
    }

    #[test]
    fn exact_arguments_and_calls_without_a_path() {
        let args = json!({ "to": "ana@example.com", "body": "hi" });
        let exact = GrantArguments::chosen(GrantArgumentChoice::Exactly, &args).unwrap();
        assert!(exact.covers(&args));
        assert!(!exact.covers(&json!({ "to": "bo@example.com", "body": "hi" })));
        assert_eq!(
            GrantArguments::chosen(GrantArgumentChoice::SameFolder, &args),
            None,
            "no path to take a folder from"
        );
        assert!(GrantArguments::Any.covers(&args));
        let url = json!({ "url": "https://example.com/a/b" });
        assert_eq!(
            path_argument(&url),
            Some(("url", "https://example.com/a/b"))
        );
    }
}
