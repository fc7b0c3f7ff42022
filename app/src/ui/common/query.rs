//! Putting text into a URL's query.

/// `text` escaped for a query value: everything but unreserved characters
/// and `/` as `%XX`, so a path with its own query survives as one value.
pub fn query_value(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The parameters of `pairs` that have a value, each as `&name=value`:
/// what a link to another page of a filtered list carries on.
pub fn kept_params(pairs: &[(&str, Option<&str>)]) -> String {
    pairs
        .iter()
        .filter_map(|(name, value)| {
            let value = value.filter(|v| !v.is_empty())?;
            Some(format!("&{name}={}", query_value(value)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_path_with_a_query_is_one_value() {
        assert_eq!(
            super::query_value("/review/case_1?token=a-b_c"),
            "/review/case_1%3Ftoken%3Da-b_c"
        );
        assert_eq!(super::query_value("/c/x y&z"), "/c/x%20y%26z");
    }

    #[test]
    fn only_parameters_with_a_value_are_kept() {
        let kept = super::kept_params(&[("q", Some("a b")), ("tool", Some("")), ("who", None)]);
        assert_eq!(kept, "&q=a%20b");
    }
}
