//! How much of a conversation the model can read, in tokens: its context,
//! and the part of it a reply may take. The server sets it from
//! `AIRLOCK_MODEL_CONTEXT`, else from what the model's server reports, else
//! a safe default.

/// A model's context, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelContext {
    /// The whole context: the request and the reply together.
    pub tokens: u32,
    /// What a reply may take of it (`max_tokens`), kept free of history.
    pub reply_tokens: u32,
}

/// The context assumed when nobody says: small enough for most local
/// servers' defaults, so history is cut before a server refuses it.
pub const DEFAULT_CONTEXT_TOKENS: u32 = 8192;

/// Room kept for the system prompt and the tools' descriptions when a
/// message is measured on its own, before the request is built.
const FRAME_TOKENS: u32 = 1024;

impl ModelContext {
    /// The tokens a reply is kept: its limit, but never more than half the
    /// context, so a small context still holds some history.
    pub fn reply_room(&self) -> u32 {
        self.reply_tokens.min(self.tokens / 2)
    }

    /// The most one message may take and still reach the model.
    pub fn message_room(&self) -> u32 {
        self.tokens
            .saturating_sub(self.reply_room())
            .saturating_sub(FRAME_TOKENS)
    }
}

/// A cautious estimate of the tokens `text` takes: one per three bytes
/// (English runs about four characters a token; code and other scripts
/// fewer), so a history cut by it fits rather than just misses.
pub fn estimate_tokens(text: &str) -> u32 {
    u32::try_from(text.len().div_ceil(3)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_context_keeps_room_for_history() {
        let small = ModelContext {
            tokens: 4096,
            reply_tokens: 4096,
        };
        assert_eq!(small.reply_room(), 2048);
        assert_eq!(small.message_room(), 4096 - 2048 - 1024);
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 2);
    }
}
