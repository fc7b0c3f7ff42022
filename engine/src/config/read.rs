//! Reading the file into its raw structs. A mistake found there becomes a
//! [`PolicyError`] with the full key path, the line and column, and for a
//! misspelt key or value the nearest one that would do.

use super::raw::RawConfig;
use crate::policy::{PolicyError, Position};

/// The file's text as raw structs, or its first mistake.
pub(super) fn read(file: &str, text: &str) -> Result<RawConfig, PolicyError> {
    let document = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(document).map_err(|e| mistake(file, text, &e))
}

fn mistake(
    file: &str,
    text: &str,
    e: &serde_path_to_error::Error<serde_yaml::Error>,
) -> PolicyError {
    // For a key it refuses, the path ends with that key.
    let path = e.path().to_string();
    let at = e.inner().location().map(|l| Position {
        line: l.line(),
        column: l.column(),
    });
    let mut problem = bare_message(e.inner(), &path);
    problem = suggest(&problem).unwrap_or(problem);
    // The parser only says it found a character that starts no token.
    if !problem.contains("tab") && at.is_some_and(|at| is_tab(text, at)) {
        problem.push_str(" (a tab: YAML indents with spaces)");
    }
    PolicyError {
        file: file.to_owned(),
        key: if path == "." {
            "(document)".into()
        } else {
            path
        },
        problem,
        at,
    }
}

/// Whether the character at `at` is a tab.
fn is_tab(text: &str, at: Position) -> bool {
    let line = text.lines().nth(at.line.saturating_sub(1));
    line.and_then(|l| l.chars().nth(at.column.saturating_sub(1))) == Some('\t')
}

/// serde_yaml's message without the path and the place it writes into it,
/// which the error gives on their own.
fn bare_message(error: &serde_yaml::Error, path: &str) -> String {
    let mut text = error.to_string();
    if let Some(l) = error.location() {
        let place = format!(" at line {} column {}", l.line(), l.column());
        text = text.replacen(&place, "", 1);
    }
    // serde_yaml opens with its own path: the value's, or for a key it
    // refused, its mapping's. Either is `path` or one of its ancestors.
    let mut prefix = path;
    loop {
        let rest = text.strip_prefix(prefix).and_then(|r| r.strip_prefix(": "));
        if let Some(rest) = rest {
            return rest.to_owned();
        }
        match prefix.rfind(['.', '[']) {
            Some(end) => prefix = &prefix[..end],
            None => return text,
        }
    }
}

/// For serde's unknown key or value, a message that names the nearest
/// known one, or for a key with none near, lists them.
fn suggest(message: &str) -> Option<String> {
    let (kind, rest) = if let Some(rest) = message.strip_prefix("unknown field ") {
        ("key", rest)
    } else {
        ("variant", message.strip_prefix("unknown variant ")?)
    };
    // serde quotes the word and each known one in backticks.
    let mut quoted = rest.split('`').skip(1).step_by(2);
    let wrong = quoted.next()?;
    let known: Vec<&str> = quoted.collect();
    match nearest(wrong, &known) {
        Some(near) => Some(format!("unknown {kind} `{wrong}`; did you mean `{near}`?")),
        None if kind == "key" => {
            let (_, expected) = rest.split_once(", ")?;
            Some(format!("unknown key `{wrong}`; {expected}"))
        }
        None => None,
    }
}

/// The known word nearest to `wrong`, if near enough to be what was meant:
/// at most a third of its letters differ (one, for short words).
fn nearest<'a>(wrong: &str, known: &[&'a str]) -> Option<&'a str> {
    let most = (wrong.chars().count() / 3).max(1);
    let distances = known.iter().map(|k| (edit_distance(wrong, k), *k));
    let near = distances.filter(|(d, _)| *d <= most);
    near.min_by_key(|(d, _)| *d).map(|(_, k)| k)
}

/// The fewest letters to insert, delete or change to turn `a` into `b`
/// (Levenshtein), one row of the table at a time.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == *cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_word_is_suggested_only_when_near() {
        assert_eq!(edit_distance("comand", "command"), 1);
        assert_eq!(edit_distance("memroy", "memory"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        let known = ["command", "args", "auto_approved_tools"];
        assert_eq!(nearest("comand", &known), Some("command"));
        assert_eq!(
            nearest("auto_aproved_tools", &known),
            Some("auto_approved_tools")
        );
        assert_eq!(nearest("policy", &known), None);
        assert_eq!(nearest("arg", &known), Some("args"));
    }

    #[test]
    fn an_unknown_key_far_from_any_lists_the_known_ones() {
        let message = "unknown field `xyz`, expected `a` or `b`";
        assert_eq!(
            suggest(message).as_deref(),
            Some("unknown key `xyz`; expected `a` or `b`")
        );
        let message = "unknown variant `block`, expected one of `deny`, `allow`";
        assert_eq!(suggest(message), None);
    }
}
