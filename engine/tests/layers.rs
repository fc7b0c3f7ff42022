//! The engine's floors, checked from its source: every module imports only
//! modules on lower floors, and no modules import each other in a circle,
//! in `engine/src` and in `app/src`. Test code is left out: a test may reach
//! anywhere to set up what it checks.
//!
//! The check reads `crate::` and `super::` paths (and the crate root's
//! re-exports) line by line. It is not a compiler, but the code it reads is
//! plain: one path per use, no glob imports of other modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The engine's top-level modules by floor: a module may import any module
/// of a lower floor, and none of its own floor or above.
const FLOORS: &[&[&str]] = &[
    &["domain", "clock", "intent", "throttle"],
    &["policy", "metrics"],
    &["config"],
    &["store", "events", "tools"],
    &["core", "error"],
    &["audit", "grants", "insights", "people", "relay"],
    &["decisions"],
    &["reviews", "agent"],
    &["conversations"],
    &["engine"],
];

#[test]
fn engine_modules_only_import_lower_floors() {
    let graph = Graph::read(&crate_dir().join("src"));
    let floor = |module: &str| {
        FLOORS
            .iter()
            .position(|f| f.contains(&module))
            .unwrap_or_else(|| panic!("engine/src/{module}: add it to a floor in FLOORS"))
    };
    let wrong: Vec<_> = graph
        .top_level_edges()
        .into_iter()
        .filter(|(from, to)| floor(to) >= floor(from))
        .map(|(from, to)| format!("{from} imports {to}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "imports that go up or sideways: {wrong:#?}"
    );
}

#[test]
fn domain_imports_nothing_else_of_the_engine() {
    let graph = Graph::read(&crate_dir().join("src"));
    let out: Vec<_> = graph
        .top_level_edges()
        .into_iter()
        .filter(|(from, _)| from == "domain")
        .collect();
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn no_module_circles_in_the_engine_or_the_app() {
    for dir in [crate_dir().join("src"), crate_dir().join("../app/src")] {
        let graph = Graph::read(&dir);
        let circles = graph.sibling_circles();
        assert!(circles.is_empty(), "{}: {circles:#?}", dir.display());
    }
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Which module paths each module's production code names.
struct Graph {
    /// From a module path (`["store", "sqlite"]`) to the paths it names.
    edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
}

impl Graph {
    fn read(src: &Path) -> Self {
        let root = std::fs::read_to_string(src.join("lib.rs")).unwrap();
        let reexports = root_reexports(&root);
        let mut graph = Graph {
            edges: BTreeMap::new(),
        };
        graph.read_module(src, &src.join("lib.rs"), Vec::new(), &reexports);
        graph
    }

    /// Reads one file (module `path`) and the files of its non-test child modules.
    fn read_module(
        &mut self,
        src: &Path,
        file: &Path,
        path: Vec<String>,
        reexports: &BTreeMap<String, String>,
    ) {
        let text = std::fs::read_to_string(file).unwrap();
        let mut named = BTreeSet::new();
        let mut children = Vec::new();
        let mut test_next = false;
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or_default().trim();
            if code == "#[cfg(test)]" {
                test_next = true;
                continue;
            }
            let is_test = std::mem::take(&mut test_next);
            if is_test && code.contains("mod ") && code.ends_with('{') {
                break; // the inline test module closes the file
            }
            if is_test {
                continue;
            }
            if let Some(child) = child_module(code) {
                children.push(child.to_owned());
            }
            for target in paths_in(code, &path, reexports) {
                named.insert(target);
            }
        }
        self.edges.insert(path.clone(), named);
        let dir = if path.is_empty() {
            src.to_path_buf()
        } else {
            file.with_extension("")
        };
        for child in children {
            let mut child_path = path.clone();
            child_path.push(child.clone());
            let file = dir.join(format!("{child}.rs"));
            if file.exists() {
                self.read_module(src, &file, child_path, reexports);
            }
        }
    }

    /// Edges between the crate's top-level modules.
    fn top_level_edges(&self) -> BTreeSet<(String, String)> {
        let mut edges = BTreeSet::new();
        for (from, targets) in &self.edges {
            for to in targets {
                if let (Some(f), Some(t)) = (from.first(), to.first()) {
                    if f != t {
                        edges.insert((f.clone(), t.clone()));
                    }
                }
            }
        }
        edges
    }

    /// Circles among sibling modules: an edge between two modules counts
    /// between the children of their nearest common parent (a parent and
    /// its own children may name each other, as re-exports do).
    fn sibling_circles(&self) -> Vec<Vec<String>> {
        let mut by_parent: BTreeMap<Vec<String>, BTreeSet<(String, String)>> = BTreeMap::new();
        for (from, targets) in &self.edges {
            for to in targets {
                let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
                if common < from.len() && common < to.len() {
                    by_parent
                        .entry(from[..common].to_vec())
                        .or_default()
                        .insert((from[common].clone(), to[common].clone()));
                }
            }
        }
        let mut circles = Vec::new();
        for (parent, edges) in by_parent {
            for (a, b) in &edges {
                if reaches(&edges, b, a) {
                    circles
                        .push([parent.clone(), vec![format!("{a} -> {b} -> … -> {a}")]].concat());
                }
            }
        }
        circles
    }
}

/// Whether `to` can be reached from `from` along `edges`.
fn reaches(edges: &BTreeSet<(String, String)>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut next = vec![from.to_owned()];
    while let Some(node) = next.pop() {
        if node == to {
            return true;
        }
        if seen.insert(node.clone()) {
            next.extend(
                edges
                    .iter()
                    .filter(|(a, _)| *a == node)
                    .map(|(_, b)| b.clone()),
            );
        }
    }
    false
}

/// `mod name;` or `pub mod name;` (a child module in its own file).
fn child_module(code: &str) -> Option<&str> {
    let rest = code.strip_prefix("pub ").unwrap_or(code);
    let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
    rest.strip_prefix("mod ")?.strip_suffix(';')
}

/// The crate root's `pub use module::{Item, …}` lines: item name to module.
fn root_reexports(root: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for line in root.lines() {
        let Some(rest) = line.strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, items)) = rest.split_once("::") else {
            continue;
        };
        for item in items.trim_matches(|c| "{};".contains(c)).split(',') {
            names.insert(item.trim().to_owned(), module.to_owned());
        }
    }
    names
}

/// The module paths a line of code names through `crate::` or `super::`.
fn paths_in(code: &str, here: &[String], reexports: &BTreeMap<String, String>) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let starts = code
        .match_indices("crate::")
        .chain(code.match_indices("super::"));
    for (at, keyword) in starts {
        let before = code[..at].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut base: Vec<String> = if keyword == "crate::" {
            Vec::new()
        } else {
            here[..here.len().saturating_sub(1)].to_vec()
        };
        let mut rest = &code[at + keyword.len()..];
        while let Some(more) = rest.strip_prefix("super::") {
            base.pop();
            rest = more;
        }
        // `path::{a, B}` names each item; `path::a::B` names `path::a`.
        let (stem, items) = match rest.find('{') {
            Some(brace) if !rest[..brace].contains(|c: char| c.is_whitespace()) => {
                let items = rest[brace + 1..].split('}').next().unwrap_or_default();
                (&rest[..brace], items.split(',').collect::<Vec<_>>())
            }
            _ => (rest, vec![""]),
        };
        for item in items {
            let mut path = base.clone();
            let full = format!("{stem}{}", item.trim());
            for segment in full.split("::") {
                let name: String = segment
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if name.is_empty() || name == "self" || name.starts_with(char::is_uppercase) {
                    if path.is_empty() {
                        path.extend(reexports.get(&name).cloned());
                    }
                    break;
                }
                path.push(name);
            }
            if !path.is_empty() {
                found.push(path);
            }
        }
    }
    found
}
