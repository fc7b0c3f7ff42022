//! A small embedded migrator. Migrations are SQL files compiled into the
//! binary, applied in order, each in its own transaction, and recorded in
//! `schema_migrations`. We keep this instead of `sqlx::migrate!` so the build
//! does not compile the database drivers a second time for the macro crate.

/// One schema change.
pub(crate) struct Migration {
    /// Its position; applied in ascending order.
    pub version: i64,
    /// What it does.
    pub description: &'static str,
    /// The statements, separated by `;` at line ends.
    pub sql: &'static str,
}

/// Splits a migration into statements, dropping comment lines first (they
/// may contain `;`). Our migrations never put `;` inside a literal, so a
/// split at statement ends is enough, except inside the `$$`-quoted body of
/// a function, whose statements end in `;` too: that stays whole.
pub(crate) fn statements(sql: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut current = String::new();
    let mut in_body = false;
    for line in sql.lines().filter(|l| !l.trim_start().starts_with("--")) {
        current.push_str(line);
        current.push('\n');
        if line.matches("$$").count() % 2 == 1 {
            in_body = !in_body;
        }
        if !in_body && line.trim_end().ends_with(';') {
            found.push(current.trim().trim_end_matches(';').trim().to_owned());
            current.clear();
        }
    }
    found.push(current.trim().to_owned());
    found.retain(|s| !s.is_empty());
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_blank_statements_are_skipped() {
        let sql = "-- header\ncreate table a (x int);\n\n-- only a comment;\ncreate table b (\n  -- a; b;\n  y int\n);\n";
        assert_eq!(
            statements(sql),
            ["create table a (x int)", "create table b (\n  y int\n)"]
        );
    }

    #[test]
    fn a_function_body_stays_one_statement() {
        let sql = "create function f() returns void language plpgsql as $$\nbegin\n    perform 1;\n    perform 2;\nend\n$$;\ncreate table c (z int);\n";
        assert_eq!(
            statements(sql),
            [
                "create function f() returns void language plpgsql as $$\nbegin\n    perform 1;\n    perform 2;\nend\n$$",
                "create table c (z int)"
            ]
        );
    }
}
