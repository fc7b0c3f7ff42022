//! What a person's chat message means while calls wait for them.

/// What a message sent while calls wait means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatIntent {
    /// Approve what waits.
    Approve,
    /// Reject what waits, with this reason.
    Reject(Option<String>),
    /// Something else.
    Other,
}

/// Reads "approve" / "yes" / "go ahead" and "reject" / "no" / "deny …".
pub fn chat_intent(text: &str) -> ChatIntent {
    let lower = text.trim().to_lowercase();
    let words = lower.trim_end_matches(['.', '!']);
    if [
        "approve",
        "approved",
        "yes",
        "y",
        "go ahead",
        "ok",
        "okay",
        "approve all",
        "yes please",
        "do it",
    ]
    .contains(&words)
    {
        return ChatIntent::Approve;
    }
    for prefix in ["reject", "no", "deny", "don't", "do not", "stop"] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            if rest.is_empty() || rest.starts_with([' ', ',', '.', ':', '!', '-']) {
                let cut = text.trim().len() - rest.len();
                let reason = text.trim()[cut..]
                    .trim_start_matches([' ', ',', '.', ':', '!', '-'])
                    .trim();
                return ChatIntent::Reject((!reason.is_empty()).then(|| reason.to_owned()));
            }
        }
    }
    ChatIntent::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_words_decide_pending_calls() {
        assert_eq!(chat_intent("Yes!"), ChatIntent::Approve);
        assert_eq!(chat_intent("go ahead"), ChatIntent::Approve);
        assert_eq!(chat_intent("no"), ChatIntent::Reject(None));
        assert_eq!(
            chat_intent("No, keep the backup"),
            ChatIntent::Reject(Some("keep the backup".into()))
        );
        assert_eq!(
            chat_intent("deny: too risky"),
            ChatIntent::Reject(Some("too risky".into()))
        );
        assert_eq!(chat_intent("notes first please"), ChatIntent::Other);
        assert_eq!(chat_intent("list files"), ChatIntent::Other);
    }
}
