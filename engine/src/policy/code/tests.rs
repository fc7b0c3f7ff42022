use super::*;

fn verdict(outcome: Outcome, reason: &str, approvals: Option<u32>) -> CodeVerdict {
    CodeVerdict {
        outcome,
        reason: reason.to_owned(),
        overrides: Overrides {
            approvals_required: approvals,
            ..Overrides::default()
        },
    }
}

#[test]
fn the_stricter_verdict_wins_and_two_asks_keep_both_words() {
    let allow = verdict(Outcome::Allow, "a", None);
    let ask = verdict(Outcome::RequireApproval, "b", Some(2));
    let deny = verdict(Outcome::Deny, "c", None);
    assert_eq!(allow.clone().stricter(ask.clone()), ask);
    assert_eq!(deny.clone().stricter(ask.clone()), deny);
    let other = verdict(Outcome::RequireApproval, "d", Some(3));
    let both = ask.stricter(other);
    assert_eq!(both.reason, "b; d");
    assert_eq!(both.overrides.approvals_required, Some(3));
}

#[test]
fn a_byte_offset_is_a_line_and_column() {
    let text = "ab\ncdé\nf";
    assert_eq!(position(text, 0), Position { line: 1, column: 1 });
    assert_eq!(position(text, 5), Position { line: 2, column: 3 });
    assert_eq!(position(text, text.len()), Position { line: 3, column: 2 });
    // Inside a character: the place of the character.
    assert_eq!(position(text, 6), Position { line: 2, column: 3 });
}
