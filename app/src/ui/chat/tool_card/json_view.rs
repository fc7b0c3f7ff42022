//! Arguments and results as readable, coloured JSON: indented like
//! `serde_json`'s pretty printer, with very long strings folded so one huge
//! value does not bury the rest of the card.

use leptos::prelude::*;
use serde_json::Value;

/// Strings longer than this many characters (as JSON) are folded.
const FOLD_AT: usize = 160;
/// How much of a folded string shows before it is opened.
const FOLD_PREVIEW: usize = 80;

/// A piece of the printed JSON and how it is coloured.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    /// Brackets, commas, colons, line breaks and indentation.
    Punct(String),
    /// An object key, quoted.
    Key(String),
    /// A string value, quoted and escaped.
    Str(String),
    /// A number.
    Num(String),
    /// `true`, `false` or `null`.
    Lit(String),
    /// A long string value: its beginning, and the whole.
    Fold {
        /// The first characters, shown closed.
        preview: String,
        /// The whole value, shown open.
        full: String,
    },
}

fn push(value: &Value, indent: usize, out: &mut Vec<Token>) {
    let pad = |n: usize| " ".repeat(n);
    match value {
        Value::Object(map) if map.is_empty() => out.push(Token::Punct("{}".into())),
        Value::Array(items) if items.is_empty() => out.push(Token::Punct("[]".into())),
        Value::Object(map) => {
            out.push(Token::Punct("{\n".into()));
            for (i, (key, item)) in map.iter().enumerate() {
                out.push(Token::Punct(pad(indent + 2)));
                out.push(Token::Key(Value::String(key.clone()).to_string()));
                out.push(Token::Punct(": ".into()));
                push(item, indent + 2, out);
                out.push(Token::Punct(
                    if i + 1 < map.len() { ",\n" } else { "\n" }.into(),
                ));
            }
            out.push(Token::Punct(format!("{}}}", pad(indent))));
        }
        Value::Array(items) => {
            out.push(Token::Punct("[\n".into()));
            for (i, item) in items.iter().enumerate() {
                out.push(Token::Punct(pad(indent + 2)));
                push(item, indent + 2, out);
                out.push(Token::Punct(
                    if i + 1 < items.len() { ",\n" } else { "\n" }.into(),
                ));
            }
            out.push(Token::Punct(format!("{}]", pad(indent))));
        }
        Value::String(_) => {
            let full = value.to_string();
            if full.chars().count() > FOLD_AT {
                let preview = full.chars().take(FOLD_PREVIEW).collect::<String>() + "…";
                out.push(Token::Fold { preview, full });
            } else {
                out.push(Token::Str(full));
            }
        }
        Value::Number(n) => out.push(Token::Num(n.to_string())),
        Value::Bool(_) | Value::Null => out.push(Token::Lit(value.to_string())),
    }
}

/// The printed JSON of `value`, as coloured pieces.
pub fn tokens(value: &Value) -> Vec<Token> {
    let mut out = Vec::new();
    push(value, 0, &mut out);
    out
}

/// JSON in a `pre`, coloured, with long strings folded.
#[component]
pub fn JsonView(
    value: Value,
    /// The accessible name of the block ("Arguments", "Result").
    label: &'static str,
) -> impl IntoView {
    let pieces = tokens(&value)
        .into_iter()
        .map(|token| match token {
            Token::Punct(t) => view! { <span class="j-punct">{t}</span> }.into_any(),
            Token::Key(t) => view! { <span class="j-key">{t}</span> }.into_any(),
            Token::Str(t) => view! { <span class="j-str">{t}</span> }.into_any(),
            Token::Num(t) => view! { <span class="j-num">{t}</span> }.into_any(),
            Token::Lit(t) => view! { <span class="j-lit">{t}</span> }.into_any(),
            Token::Fold { preview, full } => {
                let size = format!(" ({} characters)", full.chars().count());
                view! {
                    <details class="j-fold">
                        <summary><span class="j-str">{preview}</span><span class="j-size">{size}</span></summary>
                        <span class="j-str">{full}</span>
                    </details>
                }
                .into_any()
            }
        })
        .collect_view();
    view! { <pre class="tool-args json" aria-label=label>{pieces}</pre> }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn printed(tokens: &[Token]) -> String {
        tokens
            .iter()
            .map(|t| match t {
                Token::Punct(s) | Token::Key(s) | Token::Str(s) | Token::Num(s) | Token::Lit(s) => {
                    s.as_str()
                }
                Token::Fold { full, .. } => full.as_str(),
            })
            .collect()
    }

    #[test]
    fn prints_exactly_as_pretty_json() {
        let value = json!({
            "path": "a \"quoted\" <b>.txt",
            "n": 3.5, "ok": true, "none": null,
            "list": [1, {"x": []}, {}], "nested": {"deep": {"k": "v"}}
        });
        assert_eq!(
            printed(&tokens(&value)),
            serde_json::to_string_pretty(&value).unwrap()
        );
        assert_eq!(printed(&tokens(&json!({}))), "{}");
    }

    #[test]
    fn colours_keys_and_values_apart_and_folds_long_strings() {
        let long = "x".repeat(500);
        let t = tokens(&json!({"content": long, "mode": "append", "force": false, "n": 2}));
        assert!(t.contains(&Token::Key("\"content\"".into())));
        assert!(t.contains(&Token::Str("\"append\"".into())));
        assert!(t.contains(&Token::Lit("false".into())));
        assert!(t.contains(&Token::Num("2".into())));
        let fold = t.iter().find_map(|t| match t {
            Token::Fold { preview, full } => Some((preview.clone(), full.clone())),
            _ => None,
        });
        let (preview, full) = fold.expect("the long string is folded");
        assert_eq!(preview.chars().count(), FOLD_PREVIEW + 1);
        assert_eq!(full.len(), 502);
    }
}
