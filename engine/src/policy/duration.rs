//! Durations as the configuration writes them: a whole number and a unit,
//! `90s`, `30m`, `24h`, `2d`. Approvals may also never expire (`none`);
//! a source's time-outs and a policy's reminder and escalation are always
//! finite.

use std::time::Duration;

/// The longest duration: a year. Anything longer means never, which only
/// an expiry can say (`none`).
const MAX_SECONDS: u64 = 365 * 86_400;

/// Reads `24h`, `30m`, `90s`, `2d` or `none`, at most a year.
pub fn parse_expiry(text: &str) -> Result<Option<Duration>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let not_one = || format!("`{text}` is not a duration like 24h, 30m or none");
    let seconds = seconds(text).ok_or_else(not_one)?;
    match seconds {
        Seconds::Zero => Err("an expiry must be longer than zero; use none to disable it".into()),
        Seconds::TooMany => Err(format!(
            "`{text}` is too long: an expiry is at most 365d; use none to disable it"
        )),
        Seconds::Some(n) => Ok(Some(Duration::from_secs(n))),
    }
}

/// Reads a time-out: `30s`, `2m`, `1h`; longer than zero, at most a year.
pub(crate) fn parse_timeout(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let not_one = || format!("`{text}` is not a duration like 30s or 2m");
    match seconds(text).ok_or_else(not_one)? {
        Seconds::Zero => Err("a time-out must be longer than zero".into()),
        Seconds::TooMany => Err(format!("`{text}` is too long: a time-out is at most 365d")),
        Seconds::Some(n) => Ok(Duration::from_secs(n)),
    }
}

/// A duration's seconds, or why they cannot be used.
enum Seconds {
    Zero,
    TooMany,
    Some(u64),
}

/// The seconds `text` says, or `None` when it is not a number and a unit.
fn seconds(text: &str) -> Option<Seconds> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let per_unit: u64 = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    // A number too long for u64 is still a duration, only too long.
    let Ok(n) = number.parse::<u64>() else {
        let digits = !number.is_empty();
        return digits.then_some(Seconds::TooMany);
    };
    if n == 0 {
        return Some(Seconds::Zero);
    }
    // Checked: a huge number must be refused, not wrap around to a short one.
    let seconds = n.checked_mul(per_unit).filter(|s| *s <= MAX_SECONDS);
    Some(seconds.map_or(Seconds::TooMany, Seconds::Some))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("30s", 30)]
    #[case("2m", 120)]
    #[case(" 1h ", 3600)]
    #[case("1d", 86_400)]
    fn time_outs_parse(#[case] text: &str, #[case] seconds: u64) {
        assert_eq!(parse_timeout(text), Ok(Duration::from_secs(seconds)));
    }

    #[rstest]
    #[case("0s", "longer than zero")]
    #[case("none", "not a duration")]
    #[case("30", "not a duration")]
    #[case("5x", "not a duration")]
    #[case("366d", "at most 365d")]
    #[case("99999999999999999999999s", "at most 365d")]
    fn bad_time_outs_say_why(#[case] text: &str, #[case] problem: &str) {
        let e = parse_timeout(text).unwrap_err();
        assert!(e.contains(problem), "{text}: {e}");
    }
}
