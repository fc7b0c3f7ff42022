//! The engine's floors, checked from its source: every module imports only
//! modules on lower floors, and no modules import each other in a circle,
//! in `engine/src`, `app/src` and `server/src`. Test code is left out: a
//! test may reach anywhere to set up what it checks.
//!
//! Each file is parsed (`syn`), so every `use` tree and every path in code,
//! types and macro arguments is read, and a path names the deepest module
//! it goes through.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// The engine's top-level modules by floor: a module may import any module
/// of a lower floor, and none of its own floor or above.
const FLOORS: &[&[&str]] = &[
    &["domain", "clock", "intent", "throttle"],
    &["policy", "metrics", "receipts", "webauthn", "a2a"],
    &["config"],
    &["store", "events", "tools"],
    &["error"],
    &["core"],
    &[
        "audit",
        "grants",
        "insights",
        "people",
        "previews",
        "relay",
        "tool_runs",
    ],
    &["decisions"],
    &["reviews", "agent"],
    &["conversations", "proxy"],
    &["takeover"],
    &["engine"],
];

#[test]
fn engine_modules_only_import_lower_floors() {
    let graph = Graph::read(&crate_dir().join("src"), "lib.rs");
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
    let graph = Graph::read(&crate_dir().join("src"), "lib.rs");
    let out: Vec<_> = graph
        .top_level_edges()
        .into_iter()
        .filter(|(from, _)| from == "domain")
        .collect();
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn no_module_circles_in_the_workspace() {
    for dir in ["src", "../app/src", "../server/src"] {
        let dir = crate_dir().join(dir);
        let graph = Graph::read(&dir, "lib.rs");
        let circles = graph.sibling_circles();
        assert!(circles.is_empty(), "{}: {circles:#?}", dir.display());
    }
}

/// The parser reads what the old line reader could not: a `use` over
/// several lines, nested braces, a path inside a macro's arguments.
#[test]
fn every_path_in_a_file_is_read() {
    let file: syn::File = syn::parse_str(
        "use super::{\n    a::{b, C},\n    d,\n};\nfn f() { g!(crate::h::i()); let _ = super::e::F; }\n#[cfg(test)]\nmod tests { use crate::x; }",
    )
    .unwrap();
    let mut paths = Paths::new(vec!["m".into(), "n".into()], BTreeSet::new());
    paths.visit_file(&file);
    let named: BTreeSet<String> = paths.found.iter().map(|p| p.join("::")).collect();
    let expected = ["m::a::b", "m::a::C", "m::d", "h::i", "m::e::F"];
    assert_eq!(named, expected.iter().map(|s| s.to_string()).collect());
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Which modules each module's production code names.
struct Graph {
    /// Every module, by path (`["store", "sqlite"]`); the root is `[]`.
    modules: BTreeSet<Vec<String>>,
    /// From a module to the item paths it names, resolved to crate paths.
    named: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
    /// The crate root's `pub use` names, to the path they stand for.
    reexports: BTreeMap<String, Vec<String>>,
}

impl Graph {
    fn read(src: &Path, root: &str) -> Self {
        let mut graph = Graph {
            modules: BTreeSet::new(),
            named: BTreeMap::new(),
            reexports: BTreeMap::new(),
        };
        let file = parse(&src.join(root));
        graph.read_items(src, &file.items, Vec::new());
        for (path, names) in &graph.named {
            if path.is_empty() {
                for name in names {
                    if let Some(last) = name.last() {
                        graph.reexports.insert(last.clone(), name.clone());
                    }
                }
            }
        }
        graph
    }

    /// Reads a module's items (module `path`, its files under `dir`) and
    /// its non-test child modules, inline or in their own files.
    fn read_items(&mut self, dir: &Path, items: &[syn::Item], path: Vec<String>) {
        self.modules.insert(path.clone());
        let children = items.iter().filter_map(|item| match item {
            syn::Item::Mod(m) if !is_test(item) => Some(m.ident.to_string()),
            _ => None,
        });
        let mut paths = Paths::new(path.clone(), children.collect());
        for item in items {
            if is_test(item) {
                continue;
            }
            let syn::Item::Mod(module) = item else {
                paths.visit_item(item);
                continue;
            };
            let name = module.ident.to_string();
            let mut child = path.clone();
            child.push(name.clone());
            let child_dir = dir.join(&name);
            match &module.content {
                Some((_, inner)) => self.read_items(&child_dir, inner, child),
                None => {
                    let file = dir.join(format!("{name}.rs"));
                    if file.exists() {
                        self.read_items(&child_dir, &parse(&file).items, child);
                    }
                }
            }
        }
        self.named.entry(path).or_default().extend(paths.found);
    }

    /// What a module really names: the deepest module each named path
    /// goes through, a root re-export followed to its module.
    fn edges(&self) -> BTreeSet<(Vec<String>, Vec<String>)> {
        let mut edges = BTreeSet::new();
        for (from, names) in &self.named {
            for name in names {
                let name = match name.first().and_then(|n| self.reexports.get(n)) {
                    Some(real) if !self.modules.contains(&name[..1]) => real,
                    _ => name,
                };
                let depth = (0..=name.len())
                    .rev()
                    .find(|n| self.modules.contains(&name[..*n]))
                    .unwrap_or(0);
                edges.insert((from.clone(), name[..depth].to_vec()));
            }
        }
        edges
    }

    /// Edges between the crate's top-level modules.
    fn top_level_edges(&self) -> BTreeSet<(String, String)> {
        let mut edges = BTreeSet::new();
        for (from, to) in self.edges() {
            if let (Some(f), Some(t)) = (from.first(), to.first()) {
                if f != t {
                    edges.insert((f.clone(), t.clone()));
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
        for (from, to) in self.edges() {
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                by_parent
                    .entry(from[..common].to_vec())
                    .or_default()
                    .insert((from[common].clone(), to[common].clone()));
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

fn parse(file: &Path) -> syn::File {
    let text = std::fs::read_to_string(file).unwrap();
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// Whether an item is compiled only for tests (`#[cfg(test)]`).
fn is_test(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        _ => return false,
    };
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

/// The crate paths one module's code names: through `crate::`, `super::`,
/// `self::` or one of its child modules, in `use` trees, in code and
/// types, and in macro arguments.
struct Paths {
    here: Vec<String>,
    children: BTreeSet<String>,
    found: BTreeSet<Vec<String>>,
}

impl Paths {
    fn new(here: Vec<String>, children: BTreeSet<String>) -> Self {
        Self {
            here,
            children,
            found: BTreeSet::new(),
        }
    }

    /// Adds a path given as its segments, if it starts at the crate.
    fn add(&mut self, segments: &[String]) {
        let Some(first) = segments.first() else {
            return;
        };
        let mut path = match first.as_str() {
            "crate" => Vec::new(),
            "super" | "self" => self.here.clone(),
            child if self.children.contains(child) => self.here.clone(),
            _ => return,
        };
        let mut rest = segments;
        if first == "crate" {
            rest = &rest[1..];
        }
        while let Some(("super", more)) = rest.split_first().map(|(a, b)| (a.as_str(), b)) {
            path.pop();
            rest = more;
        }
        if let Some(("self", more)) = rest.split_first().map(|(a, b)| (a.as_str(), b)) {
            rest = more;
        }
        path.extend(rest.iter().filter(|s| *s != "self").cloned());
        self.found.insert(path);
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                self.add(&[prefix.clone(), vec![n.ident.to_string()]].concat())
            }
            syn::UseTree::Rename(r) => {
                self.add(&[prefix.clone(), vec![r.ident.to_string()]].concat())
            }
            syn::UseTree::Glob(_) => self.add(prefix),
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    /// `crate::a::b` and `super::c` sequences in a macro's tokens.
    fn tokens(&mut self, tokens: TokenStream) {
        let flat: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < flat.len() {
            if let TokenTree::Group(g) = &flat[i] {
                self.tokens(g.stream());
            }
            let starts = matches!(&flat[i], TokenTree::Ident(id) if id == "crate" || id == "super");
            if starts {
                let mut segments = Vec::new();
                let mut j = i;
                while let Some(TokenTree::Ident(id)) = flat.get(j) {
                    segments.push(id.to_string());
                    let colons = matches!((flat.get(j + 1), flat.get(j + 2)),
                        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':');
                    if !colons {
                        break;
                    }
                    j += 3;
                }
                self.add(&segments);
                i = j;
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test(item) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.add(&segments);
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
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
