//! A shell command read apart for a person to approve: each program with
//! its arguments, the files it redirects to, and the paths that reach
//! outside the folder it runs in. Pure; it reads as a POSIX shell splits
//! words (quotes, escapes, `|`, `&&`, `||`, `;`, `&`, `<`, `>`, `>>`) and
//! says in words what it cannot show (nested commands, expansions).

use crate::domain::{CommandPreview, CommandStep, CommandWord};

/// One piece of the command line.
#[derive(Debug, PartialEq)]
enum Token {
    /// A word after quote removal, and whether any of it was unquoted.
    Word { text: String, bare: bool },
    /// A control operator: `|`, `||`, `&&`, `;`, `&`.
    Then(String),
    /// A redirection: `<`, `>`, `>>`, `<<`, with its descriptor (`2>`).
    Redirect(String),
}

/// Reads `command`, which runs in `folder` when it is known.
pub(crate) fn read(command: &str, folder: Option<&str>) -> CommandPreview {
    let mut warnings = Vec::new();
    let tokens = split(command, &mut warnings);
    let mut steps: Vec<CommandStep> = Vec::new();
    let mut step = Step::default();
    let mut tokens = tokens.into_iter();
    while let Some(token) = tokens.next() {
        match token {
            Token::Word { text, bare } => step.word(text, bare, folder, &mut warnings),
            Token::Redirect(op) => match tokens.next() {
                Some(Token::Word { text, .. }) => {
                    let file = !text.starts_with('&') && op != "<<";
                    step.redirects.push(CommandWord {
                        outside: file && outside(&text, folder),
                        text: format!("{op} {text}"),
                    });
                    if op == "<<" {
                        note(&mut warnings, "reads a here-document, which is not shown");
                    }
                }
                _ => note(&mut warnings, "a redirection names no file"),
            },
            Token::Then(op) => steps.extend(step.finish(Some(op), &mut warnings)),
        }
    }
    steps.extend(step.finish(None, &mut warnings));
    CommandPreview {
        command: command.to_owned(),
        folder: folder.map(str::to_owned),
        steps,
        warnings,
    }
}

/// The step being read.
#[derive(Debug, Default)]
struct Step {
    program: Option<String>,
    arguments: Vec<CommandWord>,
    redirects: Vec<CommandWord>,
}

impl Step {
    fn word(&mut self, text: String, bare: bool, folder: Option<&str>, warnings: &mut Vec<String>) {
        if self.program.is_some() {
            self.arguments.push(CommandWord {
                outside: outside(&text, folder),
                text,
            });
            return;
        }
        if bare && is_assignment(&text) {
            let name = text.split('=').next().unwrap_or_default();
            note(
                warnings,
                &format!("sets {name} in the environment of what follows"),
            );
            return;
        }
        match text.as_str() {
            "sudo" | "doas" | "su" => note(
                warnings,
                &format!("runs with another user's rights ({text})"),
            ),
            "eval" | "exec" | "source" | "." => note(
                warnings,
                &format!("runs commands given as text ({text}), which are not shown"),
            ),
            _ => {}
        }
        self.program = Some(text);
    }

    fn finish(&mut self, then: Option<String>, warnings: &mut Vec<String>) -> Option<CommandStep> {
        let done = std::mem::take(self);
        let program = done.program?;
        let shell = matches!(program.as_str(), "sh" | "bash" | "zsh" | "dash");
        if shell && done.arguments.iter().any(|a| a.text == "-c") {
            note(
                warnings,
                &format!("runs a command given as text ({program} -c), shown here as one word"),
            );
        }
        Some(CommandStep {
            program,
            arguments: done.arguments,
            redirects: done.redirects,
            then,
        })
    }
}

/// Splits the line into words and operators as a shell would, noting what
/// it leaves to the shell: `$(…)`, backquotes, `$NAME`, unclosed quotes.
fn split(line: &str, warnings: &mut Vec<String>) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut bare = false;
    let mut chars = line.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            match c {
                _ if c == q => quote = None,
                '\\' if q == '"' => match chars.next() {
                    Some(next) if matches!(next, '"' | '\\' | '$' | '`') => word.push(next),
                    Some(next) => word.extend(['\\', next]),
                    None => word.push('\\'),
                },
                '$' | '`' if q == '"' => {
                    expansion(c, chars.peek(), warnings);
                    word.push(c);
                }
                _ => word.push(c),
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                started = true;
            }
            '\\' => {
                if let Some(next) = chars.next().filter(|n| *n != '\n') {
                    word.push(next);
                }
                started = true;
            }
            ' ' | '\t' => end_word(&mut tokens, &mut word, &mut started, &mut bare),
            '\n' | ';' | '|' | '&' => {
                end_word(&mut tokens, &mut word, &mut started, &mut bare);
                let op = match (c, chars.peek()) {
                    ('|', Some('|')) | ('&', Some('&')) => {
                        chars.next();
                        format!("{c}{c}")
                    }
                    ('&', Some('>')) => {
                        chars.next();
                        tokens.push(Token::Redirect("&>".into()));
                        continue;
                    }
                    ('\n', _) => ";".into(),
                    _ => c.to_string(),
                };
                tokens.push(Token::Then(op));
            }
            '<' | '>' => {
                // A descriptor written against the operator (`2>`) is part of it.
                let fd = !word.is_empty() && bare && word.chars().all(|d| d.is_ascii_digit());
                let fd = fd.then(|| std::mem::take(&mut word));
                if fd.is_some() {
                    (started, bare) = (false, false);
                }
                end_word(&mut tokens, &mut word, &mut started, &mut bare);
                let mut op = fd.unwrap_or_default();
                op.push(c);
                if chars.peek() == Some(&c) {
                    chars.next();
                    op.push(c);
                }
                tokens.push(Token::Redirect(op));
                if chars.peek() == Some(&'&') {
                    chars.next();
                    word.push('&');
                    started = true;
                }
            }
            '(' | ')' | '{' | '}' if !started => note(
                warnings,
                "groups commands in ( ) or { }, which are shown one after another",
            ),
            _ => {
                if c == '$' || c == '`' {
                    expansion(c, chars.peek(), warnings);
                }
                if matches!(c, '*' | '?' | '[') {
                    note(
                        warnings,
                        "matches file names by pattern (* ? [ ]), which the shell expands",
                    );
                }
                word.push(c);
                started = true;
                bare = true;
            }
        }
    }
    if quote.is_some() {
        note(
            warnings,
            "a quote is not closed, so the shell would refuse the command",
        );
    }
    end_word(&mut tokens, &mut word, &mut started, &mut bare);
    tokens
}

fn end_word(tokens: &mut Vec<Token>, word: &mut String, started: &mut bool, bare: &mut bool) {
    if *started || !word.is_empty() {
        tokens.push(Token::Word {
            text: std::mem::take(word),
            bare: *bare,
        });
    }
    *started = false;
    *bare = false;
}

/// Notes what a `$` or a backquote leaves to the shell.
fn expansion(c: char, next: Option<&char>, warnings: &mut Vec<String>) {
    match (c, next) {
        ('`', _) | ('$', Some('(')) => note(
            warnings,
            "runs a nested command ($(…) or `…`), whose output becomes part of this one",
        ),
        ('$', Some(n)) if n.is_ascii_alphanumeric() || matches!(n, '_' | '{' | '@' | '*') => note(
            warnings,
            "expands variables ($NAME): the words shown are before expansion",
        ),
        _ => {}
    }
}

fn note(warnings: &mut Vec<String>, words: &str) {
    if !warnings.iter().any(|w| w == words) {
        warnings.push(words.to_owned());
    }
}

/// `NAME=value` before the program.
fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a word names a path outside `folder`: an absolute path not
/// under it (any absolute path when the folder is not known), the home
/// folder (`~`), or a relative path that climbs out with `..`. An option's
/// value (`--out=/tmp/x`) counts as its path.
pub(crate) fn outside(word: &str, folder: Option<&str>) -> bool {
    let path = match word.strip_prefix('-') {
        Some(option) => match option.split_once('=') {
            Some((_, value)) => value,
            None => return false,
        },
        None => word,
    };
    if path.starts_with('~') {
        return true;
    }
    if let Some(absolute) = path.strip_prefix('/') {
        let Some(folder) = folder else {
            return true;
        };
        return normal(absolute).is_none_or(|parts| !is_under(&parts, folder));
    }
    normal(path).is_none()
}

/// `a/./b/../c` as `[a, c]`; `None` when it climbs above where it starts.
fn normal(path: &str) -> Option<Vec<&str>> {
    let mut parts = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    Some(parts)
}

/// Whether the absolute path made of `parts` is `folder` or inside it.
fn is_under(parts: &[&str], folder: &str) -> bool {
    let folder: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    parts.len() >= folder.len() && parts[..folder.len()] == folder[..]
}

#[cfg(test)]
mod tests;
